// The store jobs of the gateway (store/job-runner.ts): the hot writes, each a plain function of
// a transaction handle and plain-data arguments. On SQLite the writer thread imports this module
// and runs them there, committing those that arrive together in one transaction and one fsync.
import type { JobRegistry } from '../store/job-runner.ts';
import type { Trx } from '../store/open-store.ts';
import { TransactionsRepo, type TransactionRecord } from '../store/transactions.repo.ts';
import { recordAttemptsIn } from '../store/outbox.repo.ts';
import { completeInTransaction } from './complete-payment.ts';

/** One repository per handle, so its compiled INSERT is kept (the SQLite writer thread has one handle). */
const transactionsByHandle = new WeakMap<Trx, TransactionsRepo>();

export const storeJobs = {
  /** An initiation's one durable write: insert unless (merchant, trackid) exists; either way the stored row. */
  insertTransaction: (trx: Trx, record: TransactionRecord) => {
    let repo = transactionsByHandle.get(trx);
    if (!repo) transactionsByHandle.set(trx, (repo = new TransactionsRepo(trx)));
    return repo.insertOrGet(record, trx);
  },
  completePayment: completeInTransaction,
  /** A batch of notification attempts and their transitions (delivery/attempt-recorder.ts). */
  recordAttempts: recordAttemptsIn,
} satisfies JobRegistry;

export type StoreJobs = typeof storeJobs;

/** What the SQLite writer thread imports to find the jobs above by name. */
export const STORE_JOBS_MODULE = new URL(import.meta.url);
