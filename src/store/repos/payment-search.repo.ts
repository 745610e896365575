// The payment search table behind the commit (migration 020; docs/architecture.md "Payment
// search"): moves queued payment ids into payment_search in batches. SQL only.
//
// One batch is one transaction: take the oldest queued ids, write each payment's current search
// row, delete those queue rows. A crash before the commit leaves them queued; after it, done. On
// PostgreSQL several instances index at once: each takes queue rows the others have not locked
// (SKIP LOCKED), and since a batch may read a payment before another instance's batch reads its
// completion and commit after it, a search row's state only ever moves away from PROCESSING, the
// one way a payment's state changes (store/repos/transactions.repo.ts completes only PROCESSING rows).
//
// No id travels to the client and back: a batch is a range of the queue (SQLite) or one statement
// (PostgreSQL), so its cost does not grow with a parameter per row.
import { sql, type RawBuilder } from 'kysely';
import type { Trx } from '../engine.ts';
import { dialectOf } from '../dialect-of.ts';

/** Upserts the search rows of the payments `ids` selects, in id order (overlapping batches lock alike). */
const writeSearchRows = (ids: RawBuilder<unknown>) =>
  sql`insert into payment_search (id, merchant_id, trackid, email, amount_minor, status, created_at)
    select t.id, t.merchant_id, t.trackid, lower(t.bill_email), t.amount_minor, t.status, t.created_at
    from transactions t where t.id in (${ids}) order by t.id
    on conflict (id) do update set status = excluded.status
    where payment_search.status = 'PROCESSING'`;

/** Indexes up to `limit` queued changes; returns how many queue rows it took (0: none was queued). */
export function indexQueuedPaymentsIn(trx: Trx, limit: number): Promise<number> {
  return dialectOf(trx) === 'postgres' ? postgresBatch(trx, limit) : sqliteBatch(trx, limit);
}

/** SQLite has one writer: the oldest `limit` queue rows are exactly those up to the last of them. */
async function sqliteBatch(trx: Trx, limit: number): Promise<number> {
  const { rows } = await sql<{ upto: number | null; taken: number }>`
    select max(seq) as upto, count(*) as taken
    from (select seq from payment_search_queue order by seq limit ${limit})`.execute(trx);
  const upto = rows[0]?.upto;
  if (upto === null || upto === undefined) return 0;
  await writeSearchRows(sql`select transaction_id from payment_search_queue where seq <= ${upto}`).execute(trx);
  await sql`delete from payment_search_queue where seq <= ${upto}`.execute(trx);
  return Number(rows[0]!.taken);
}

/** PostgreSQL: take (lock and delete) and write in one statement; rows another instance holds are skipped. */
async function postgresBatch(trx: Trx, limit: number): Promise<number> {
  const { rows } = await sql<{ taken: string }>`
    with picked as (
      select seq from payment_search_queue order by seq limit ${limit} for update skip locked
    ), taken as (
      delete from payment_search_queue q using picked p where q.seq = p.seq returning q.transaction_id
    ), written as (${writeSearchRows(sql`select transaction_id from taken`)})
    select count(*) as taken from taken`.execute(trx);
  return Number(rows[0]?.taken ?? 0);
}
