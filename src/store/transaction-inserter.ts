// The durable write of an initiation, per store: "insert the transaction unless (merchant,
// trackid) exists; either way return the stored row".
//   - SQLite: replays read first, on the main thread's read connection (a lookup of
//     microseconds, no trip to the writer thread, no write lock); new rows go through group
//     commit, so a group of initiations is one message to the writer thread and one fsync.
//     A row racing in between is still caught by the INSERT's ON CONFLICT.
//   - PostgreSQL: the rows of one event-loop turn as one multi-row INSERT (pg-initiation-batch.ts).
import type { Writer } from './group-commit.ts';
import type { Store } from './open-store.ts';
import { PgInitiationBatch } from './pg-initiation-batch.ts';
import type { TransactionRecord, TransactionsRepo } from './transactions.repo.ts';

export type InsertOrGet = (record: TransactionRecord) => Promise<{ inserted: boolean; row: TransactionRecord }>;

export function createTransactionInserter(store: Store, transactions: TransactionsRepo, writer: Writer): InsertOrGet {
  if (store.pgPool) {
    const batch = new PgInitiationBatch(store.pgPool, transactions);
    return (record) => batch.insertOrGet(record);
  }
  return async (record) => {
    const existing = await transactions.findByTrackid(record.merchantId, record.trackid);
    if (existing) return { inserted: false, row: existing };
    return writer.write((trx) => transactions.insertOrGet(record, trx));
  };
}
