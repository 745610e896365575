// Catching the console's payment search table up with the queue of changes (migration 020;
// docs/architecture.md "Payment search"), a batch at a time (repos/payment-search.repo.ts).
import type { PaymentSearchIndex } from '../app/ports/store.ts';
import type { Db } from './engine.ts';

/** Queue rows per batch: one transaction, and on SQLite one turn of the writer thread. */
export const SEARCH_INDEX_BATCH = 1000;
/** Batches per catch-up: a backlog larger than this waits for the next one. */
const MAX_BATCHES = 20;

export function paymentSearchIndex(db: Db, indexBatch: (limit: number) => Promise<number>): PaymentSearchIndex {
  const run = async (): Promise<number> => {
    // A read first: an empty queue costs no write transaction (on SQLite, no turn of the writer).
    if (!(await db.selectFrom('payment_search_queue').select('seq').limit(1).executeTakeFirst())) return 0;
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const taken = await indexBatch(SEARCH_INDEX_BATCH);
      total += taken;
      if (taken < SEARCH_INDEX_BATCH) break;
    }
    return total;
  };
  // One catch-up at a time, each after the one before: one that began before a caller's write
  // committed may have found the queue empty, so a caller never joins it, it waits and runs its own.
  let tail: Promise<unknown> = Promise.resolve();
  return {
    catchUp() {
      const next = tail.then(run, run);
      tail = next.catch(() => {});
      return next;
    },
  };
}
