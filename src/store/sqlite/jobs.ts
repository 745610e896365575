// The SQLite store's jobs (store/job-runner.ts): the hot writes, each a plain function of a
// transaction handle and plain-data arguments. The writer thread imports this module and runs
// them there, committing those that arrive together in one transaction and one fsync.
import type { JobRegistry } from '../job-runner.ts';
import type { Trx } from '../engine.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { recordAttemptsIn } from '../repos/attempts.repo.ts';
import { leaseEventsIn } from '../repos/outbox-claims.repo.ts';
import { reposFor, writeCompletionIn } from '../repos/completion-write.ts';
import { indexQueuedPaymentsIn } from '../repos/payment-search.repo.ts';
import { GatewayMetaRepo } from '../repos/gateway-meta.repo.ts';
import { checkpointPending, dataDirFreeBytes } from './wal-space.ts';

export const storeJobs = {
  /** An initiation's one durable write: insert unless (merchant, trackid) exists; either way the stored row. */
  insertTransaction: (trx: Trx, record: TransactionRecord) => reposFor(trx).transactions.insertOrGet(record, trx),
  /** A planned completion, if the transaction is still PROCESSING (repos/completion-write.ts). */
  writeCompletion: writeCompletionIn,
  /** A batch of notification attempts and their transitions (delivery/attempt-recorder.ts). */
  recordAttempts: recordAttemptsIn,
  /** One batch of the console's payment search table, behind the commits (repos/payment-search.repo.ts). */
  indexPaymentSearch: indexQueuedPaymentsIn,
  /** A delivery claim's lease write (repos/outbox-claims.repo.ts). */
  leaseOutboxEvents: leaseEventsIn,
  /**
   * The readiness probe's write (app/store-health.ts), as large as a payment's. Refused while the
   * WAL awaits its checkpoint after a write failed for lack of space, and unless the data directory
   * has room for the probe and one more write as large (wal-space.ts): a probe that fits in the
   * last free space says nothing about the payment after it.
   */
  writeReadinessProbe: async (trx: Trx, probe: { name: string; value: string; now: number }) => {
    if (checkpointPending()) throw new Error('the WAL could not be checkpointed since the disk was full');
    const free = dataDirFreeBytes();
    if (free !== undefined && free < 2 * probe.value.length)
      throw new Error(`${free} bytes free in the data directory: not enough for a payment`);
    await new GatewayMetaRepo(trx).put(probe.name, probe.value, probe.now);
  },
} satisfies JobRegistry;

export type StoreJobs = typeof storeJobs;

/** What the SQLite writer thread imports to find the jobs above by name. */
export const STORE_JOBS_MODULE = new URL(import.meta.url);
