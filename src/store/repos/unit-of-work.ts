// A read-modify-write use case's database transaction as the app sees it (app/ports/store.ts
// UnitOfWork): the repositories' methods bound to one transaction handle. Rows read through it
// are locked until the transaction ends (PostgreSQL row locks; SQLite's one writer).
import type { UnitOfWork } from '../../app/ports/store.ts';
import type { Dialect, Trx } from '../engine.ts';
import type { LedgerReadsRepo } from './ledger-reads.repo.ts';
import type { LedgerRepo } from './ledger.repo.ts';
import { insertOutboxEvent } from './outbox.repo.ts';
import type { RefundsRepo } from './refunds.repo.ts';
import type { TransactionsRepo } from './transactions.repo.ts';

export type UnitOfWorkRepos = {
  transactions: TransactionsRepo;
  refunds: RefundsRepo;
  ledger: LedgerRepo;
  ledgerReads: LedgerReadsRepo;
};

export function unitOfWorkIn(trx: Trx, dialect: Dialect, repos: UnitOfWorkRepos): UnitOfWork {
  const { transactions, refunds, ledger, ledgerReads } = repos;
  return {
    lockPayment: (id) => transactions.lockById(trx, id, dialect),
    findRefundByKey: (merchantId, key) => refunds.findByKey(merchantId, key, trx),
    insertRefund: (refund) => refunds.insert(trx, refund),
    addToRefunded: (transactionId, fromMinor, toMinor) => refunds.addToRefunded(trx, transactionId, fromMinor, toMinor),
    lockAccounts: (refs, now) => ledger.lockAccounts(trx, refs, now),
    insertEntry: (entry, planned) => ledger.insertPlanned(trx, entry, planned),
    balance: (ref) => ledgerReads.balance(ref, trx),
    findEntryByIdempotencyKey: (key) => ledgerReads.findEntryByIdempotencyKey(key, trx),
    insertOutboxEvent: (event) => insertOutboxEvent(trx, event),
  };
}
