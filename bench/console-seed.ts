// The seeded store and the browser login of the console benchmarks (bench/console-payments.ts and the
// targets table's console page, bench/console-page.ts): payments generated inside the database, and a
// session cookie obtained through the console's own login form.
import { indexSeededPaymentsPostgres, indexSeededPaymentsSqlite, withRawConnection } from './seed-rows.ts';

export const DAY = 86_400_000;

/**
 * Seeds inside the database (no client round trips). Row i: created at start + i × 30 days / N,
 * merchant 'small' when i % 20 = 0 else 'big', state FAILED / PROCESSING / SUCCESS for i % 10 =
 * 0 / 1 / other, amount 100.00 + (i % 5000), e-mail buyer<i % 100000>@example.com. Deadlines are 60
 * days after creation: the payments still PROCESSING are not expired by the gateway's sweeper while
 * it is measured (100,000 expiries of a million would be what the bench measures).
 */
export async function seedConsolePayments(databaseUrl: string, start: number, rows: number): Promise<void> {
  const step = Math.floor((30 * DAY) / rows);
  const columns =
    'id, merchant_id, trackid, request_hash, token, redirect_id, status, error_code_tag, ' +
    'error_text, amount_minor, currency, payment_method, bill_country, bill_customerip, ' +
    'bill_email, return_url, server_url, payer_account_no, payer_account_name, ' +
    'payer_bank_code, productdesc, lang, created_at, expires_at, completed_at';
  await withRawConnection(databaseUrl, {
    sqlite: (db) => {
      const insert = db.prepare(
        `with recursive n(i) as (select ? union all select i + 1 from n ` +
          `where i < ?) insert into transactions (${columns}) select ` +
          `printf('00000000-0000-7000-8000-%012x', i), case when i % 20 = 0 then 'small' else 'big' end, ` +
          `'seed-' || i, hex(randomblob(16)), hex(randomblob(24)), hex(randomblob(18)), ` +
          `case i % 10 when 0 then 'FAILED' when 1 then 'PROCESSING' else 'SUCCESS' end, ` +
          `case i % 10 when 0 then 'DECLINED' else null end, null, ` +
          `(100 + i % 5000) * 10000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.0.113.7', 'buyer' || (i % 100000) || '@example.com', 'https://shop.example/return', ` +
          `'https://shop.example/hook', '1234567890', 'Somchai', 'SCB', null, 'th', ` +
          `? + i * ?, ? + i * ? + 5184000000, case i % 10 when 1 then null else ? + i * ? + 1000 end from n`,
      );
      for (let from = 1; from <= rows; from += 100_000) {
        db.exec('begin');
        insert.run(from, Math.min(rows, from + 99_999), start, step, start, step, start, step);
        db.exec('commit');
      }
      db.exec('begin');
      indexSeededPaymentsSqlite(db);
      db.exec('commit');
      db.exec('analyze');
    },
    postgres: async (client) => {
      await client.query(
        `insert into transactions (${columns}) select ` +
          `'00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'), ` +
          `case when i % 20 = 0 then 'small' else 'big' end, 'seed-' || i, md5(random()::text), ` +
          `md5(random()::text) || md5(i::text), md5(i::text || random()::text), ` +
          `case i % 10 when 0 then 'FAILED' when 1 then 'PROCESSING' else 'SUCCESS' end, ` +
          `case i % 10 when 0 then 'DECLINED' else null end, null, ` +
          `(100 + i % 5000) * 10000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.0.113.7', 'buyer' || (i % 100000) || '@example.com', 'https://shop.example/return', ` +
          `'https://shop.example/hook', '1234567890', 'Somchai', 'SCB', null, 'th', ` +
          `$1::bigint + i * $2::bigint, $1::bigint + i * $2::bigint + 5184000000, ` +
          `case i % 10 when 1 then null else $1::bigint + i * $2::bigint + 1000 end ` +
          `from generate_series(1, $3::int) as i`,
        [start, step, rows],
      );
      await indexSeededPaymentsPostgres(client);
      await client.query('analyze');
    },
  });
}

/** Cookies a browser would keep: GET the login form, POST it, keep what was set. */
export async function logIn(
  base: string,
  role: 'operator' | 'merchant',
  username: string,
  password: string,
): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (r: Response) => {
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await fetch(`${base}/console/login`);
  keep(form);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const done = await fetch(`${base}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
    body: new URLSearchParams({ csrf, role, username, password, next: '' }).toString(),
  });
  keep(done);
  if (done.status !== 303 || !jar.has('gw_console'))
    throw new Error(`console login as ${username} failed: HTTP ${done.status}`);
  return cookie();
}
