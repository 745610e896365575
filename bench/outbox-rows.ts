// Outbox rows for the delivery benchmarks (delivery-backlog.ts, delivery-window.ts): SUCCESS
// transactions with one notification each, generated in SQL (a recursive CTE), not through the
// API, so a backlog of a million takes seconds.
import { sql } from 'kysely';
import type { Db } from '../src/store/engine.ts';

/** Inserts `count` SUCCESS transactions with one outbox event each, generated in SQL. */
export async function insertEvents(
  db: Db,
  merchantId: string,
  tag: string,
  count: number,
  target: string,
  status: 'pending' | 'delivered',
  dueAt: number,
): Promise<void> {
  const chunk = 50_000;
  for (let from = 0; from < count; from += chunk) {
    const n = Math.min(chunk, count - from);
    const seq = sql`with recursive s(i) as (select ${sql.lit(from + 1)} union all select i + 1 from s
      where i < ${sql.lit(from + n)})`;
    await sql`${seq}
      insert into transactions (id, merchant_id, trackid, request_hash, token, redirect_id, status, amount_minor,
        currency, payment_method, bill_country, bill_customerip, bill_email, return_url, server_url, payer_account_no,
        payer_account_name, payer_bank_code, created_at, expires_at, completed_at)
      select ${tag} || cast(i as text), ${merchantId}, ${tag} || cast(i as text), 'h',
        'tok' || ${tag} || cast(i as text), 'rid' || ${tag} || cast(i as text), 'SUCCESS', 10000000, 'THB',
        'THAI_DEBIT', 'TH', '127.0.0.1', 'payer@example.com', 'https://shop.example/r', ${target + '/hook'},
        '1234567890', 'Bench Payer', '014', cast(${dueAt} as bigint), cast(${dueAt + 900_000} as bigint),
        cast(${dueAt} as bigint)
      from s`.execute(db);
    await sql`${seq}
      insert into outbox_events (id, transaction_id, merchant_id, target_url, origin, payload, status, attempts,
        next_attempt_at, series, created_at)
      select 'evt_' || ${tag} || cast(i as text), ${tag} || cast(i as text), ${merchantId}, ${target + '/hook'},
        ${target},
        '{"type":"valid","transactionid":"' || ${tag} || cast(i as text) || '"}', ${status}, 0,
        cast(${dueAt} as bigint) + i, 1, cast(${dueAt} as bigint) + i
      from s`.execute(db);
  }
}
