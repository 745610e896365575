// The payment search table behind the commit (migration 020; docs/architecture.md "Payment
// search"): moves queued payment ids into payment_search in batches. SQL only.
//
// One batch is one transaction: read the oldest queued ids, write each payment's current search
// row, delete those queue rows. A crash before the commit leaves them queued; after it, done. On
// PostgreSQL several instances index at once: each takes queue rows the others have not locked
// (SKIP LOCKED), and since a batch may read a payment before another instance's batch reads its
// completion and commit after it, a search row's state only ever moves away from PROCESSING, the
// one way a payment's state changes (store/repos/transactions.repo.ts completes only PROCESSING rows).
import { sql } from 'kysely';
import type { Trx } from '../engine.ts';
import { dialectOf } from '../dialect-of.ts';

/** Indexes up to `limit` queued changes; returns how many queue rows it took (0: none was queued). */
export async function indexQueuedPaymentsIn(trx: Trx, limit: number): Promise<number> {
  let pick = trx.selectFrom('payment_search_queue').select(['seq', 'transaction_id']).orderBy('seq').limit(limit);
  if (dialectOf(trx) === 'postgres') pick = pick.forUpdate().skipLocked();
  const queued = await pick.execute();
  if (queued.length === 0) return 0;
  // In id order, so two instances writing overlapping batches take the rows' locks in one order.
  const ids = [...new Set(queued.map((q) => q.transaction_id))].sort();
  await sql`insert into payment_search (id, merchant_id, trackid, email, amount_minor, status, created_at)
    select id, merchant_id, trackid, lower(bill_email), amount_minor, status, created_at
    from transactions where id in (${sql.join(ids)}) order by id
    on conflict (id) do update set status = excluded.status
    where payment_search.status = 'PROCESSING'`.execute(trx);
  await trx
    .deleteFrom('payment_search_queue')
    .where(
      'seq',
      'in',
      queued.map((q) => q.seq),
    )
    .execute();
  return queued.length;
}
