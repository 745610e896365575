// The durable write of an initiation, per store: "insert the transaction unless (merchant,
// trackid) exists; either way return the stored row".
//   - SQLite: every initiation is the store job `insertInGroup` on the writer thread, committed
//     in a group with the jobs around it (one message per event-loop turn, one fsync per group).
//     A replay's INSERT … ON CONFLICT DO NOTHING only probes the unique index and writes nothing;
//     the job then reads the stored row there. Replays used to read first on the main thread's
//     read connection, but every group commit resets that connection's page cache, so the
//     lookup cost every NEW initiation ~30 µs of HTTP-thread CPU to spare rare replays a trip to
//     the writer thread (docs/performance.md, "Where issue 12 stands").
//   - PostgreSQL: the rows of one event-loop turn as one multi-row INSERT (pg-initiation-batch.ts).
import type { StoreEngine } from './engine.ts';
import { PgInitiationBatch } from './postgres/initiation-batch.ts';
import type { TransactionsRepo } from './repos/transactions.repo.ts';
import type { TransactionRecord } from '../domain/transaction.ts';

export type InsertOrGet = (record: TransactionRecord) => Promise<{ inserted: boolean; row: TransactionRecord }>;

export function createTransactionInserter(
  store: StoreEngine,
  transactions: TransactionsRepo,
  insertInGroup: InsertOrGet,
): InsertOrGet {
  // PostgreSQL batches on the pool instead of running the job (a replay is read back in the batch's SELECT).
  if (store.pgPool) {
    const batch = new PgInitiationBatch(store.pgPool, transactions);
    return (record) => batch.insertOrGet(record);
  }
  return insertInGroup;
}
