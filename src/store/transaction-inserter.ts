// The durable write of an initiation, per store: "insert the transaction unless (merchant,
// trackid) exists; either way return the stored row".
//   - SQLite: replays read first, on the main thread's read connection (a lookup of
//     microseconds, no trip to the writer thread, no write lock); new rows go to the writer
//     thread as a store job (`insertInGroup`), committed in a group with the jobs around it:
//     one message per event-loop turn, one fsync per group. A row racing in between is still
//     caught by the INSERT's ON CONFLICT.
//   - PostgreSQL: the rows of one event-loop turn as one multi-row INSERT (pg-initiation-batch.ts).
import type { Store } from './open-store.ts';
import { PgInitiationBatch } from './pg-initiation-batch.ts';
import type { TransactionRecord, TransactionsRepo } from './transactions.repo.ts';

export type InsertOrGet = (record: TransactionRecord) => Promise<{ inserted: boolean; row: TransactionRecord }>;

export function createTransactionInserter(store: Store, transactions: TransactionsRepo, insertInGroup: InsertOrGet): InsertOrGet {
  if (store.pgPool) {
    const batch = new PgInitiationBatch(store.pgPool, transactions);
    return (record) => batch.insertOrGet(record);
  }
  return async (record) => {
    const existing = await transactions.findByTrackid(record.merchantId, record.trackid);
    if (existing) return { inserted: false, row: existing };
    return insertInGroup(record);
  };
}
