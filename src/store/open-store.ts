// Opens the configured store and hands out its ports (app/ports/): the rest of the gateway
// sees these and nothing else. The shared Kysely repositories (repos/) serve both databases;
// what each engine does its own way (group commit on SQLite's writer thread, set batching and
// LISTEN/NOTIFY on PostgreSQL) comes from sqlite/sqlite-parts.ts or postgres/postgres-parts.ts.
import type { Store } from '../app/ports/store.ts';
import { openStoreEngine, type OpenStoreOptions, type StoreEngine } from './engine.ts';
import type { EngineParts } from './engine-parts.ts';
import { postgresParts } from './postgres/postgres-parts.ts';
import { ConsolePaymentsRepo } from './repos/console-payments.repo.ts';
import { ConsoleRepo } from './repos/console.repo.ts';
import { GatewayMetaRepo } from './repos/gateway-meta.repo.ts';
import { LedgerReadsRepo } from './repos/ledger-reads.repo.ts';
import { LedgerRepo } from './repos/ledger.repo.ts';
import { MerchantsRepo } from './repos/merchants.repo.ts';
import { OutboxClaimsRepo } from './repos/outbox-claims.repo.ts';
import { OutboxRepo } from './repos/outbox.repo.ts';
import { ProcessorAttemptsRepo } from './repos/processor-attempts.repo.ts';
import { AttentionRepo, ProcessorNotificationsRepo } from './repos/processor-notifications.repo.ts';
import { RefundsRepo } from './repos/refunds.repo.ts';
import { TransactionsRepo } from './repos/transactions.repo.ts';
import { unitOfWorkIn } from './repos/unit-of-work.ts';
import { paymentSearchIndex } from './payment-search-index.ts';
import { sqliteParts } from './sqlite/sqlite-parts.ts';
import { isStoreUnavailable } from './store-unavailable.ts';
import { isUniqueViolation } from './unique-violation.ts';

export type { OpenStoreOptions };

export function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Store {
  return storeOver(openStoreEngine(databaseUrl, options));
}

/** The ports over an open engine (tests keep the engine to look at rows directly). */
export function storeOver(engine: StoreEngine): Store {
  const { db, dialect } = engine;
  const transactions = new TransactionsRepo(db, { pgPool: engine.pgPool, sqliteLookups: engine.sqliteLookups });
  const refunds = new RefundsRepo(db);
  const ledger = new LedgerRepo(db);
  const ledgerReads = new LedgerReadsRepo(db);
  const parts: EngineParts = engine.pgPool ? postgresParts(engine, engine.pgPool, transactions) : sqliteParts(engine);
  const claims = new OutboxClaimsRepo(db, dialect, parts.lease);
  const searchIndex = paymentSearchIndex(db, parts.indexPaymentSearch);
  return {
    kind: dialect,
    payments: {
      insertOrGet: parts.insertOrGet,
      findById: (merchantId, id) => transactions.findById(merchantId, id),
      findByTrackid: (merchantId, trackid) => transactions.findByTrackid(merchantId, trackid),
      findByRedirectId: (redirectId, carriedId) => transactions.findByRedirectId(redirectId, carriedId),
      get: async (id) => (await transactions.findForCompletion(id))?.record,
      transitions: (transactionId) => transactions.transitions(transactionId),
      findExpired: (now, limit) => transactions.findExpired(now, limit),
    },
    completions: {
      readForCompletion: (transactionId) => transactions.findForCompletion(transactionId),
      write: parts.writeCompletion,
      holdForPayer: (transactionId, payerCheck) => transactions.holdForPayer(transactionId, payerCheck),
    },
    merchants: new MerchantsRepo(db),
    ledger: ledgerReads,
    refunds,
    outbox: new OutboxRepo(db),
    deliveries: {
      claim: (options) => claims.claim(options),
      originsOf: (ids) => claims.originsOf(ids),
      release: (ids, owner) => claims.release(ids, owner),
      releaseAllOf: (owner) => claims.releaseAllOf(owner),
      releaseAll: () => claims.releaseAll(),
      nextDueAt: () => claims.nextDueAt(),
      recordAttempts: (items) => (items.length === 0 ? Promise.resolve([]) : parts.recordAttempts(items)),
      singleProcess: parts.singleProcess,
      wakeups: parts.wakeups,
    },
    consoleAccounts: new ConsoleRepo(engine),
    consoleReads: new ConsolePaymentsRepo(db, () => searchIndex.catchUp()),
    searchIndex,
    meta: metaStore(new GatewayMetaRepo(db), parts),
    processorAttempts: new ProcessorAttemptsRepo(db),
    processorNotifications: new ProcessorNotificationsRepo(db),
    attention: new AttentionRepo(db),
    unitOfWork: (work) =>
      engine.transaction((trx) => work(unitOfWorkIn(trx, dialect, { transactions, refunds, ledger, ledgerReads }))),
    ping: () => engine.ping(),
    dataDirFreeBytes: () => engine.dataDirFreeBytes(),
    isUnavailable: isStoreUnavailable,
    isUniqueViolation,
    migrate: () => engine.migrate(),
    close: () => engine.close(),
  };
}

function metaStore(repo: GatewayMetaRepo, parts: EngineParts): Store['meta'] {
  return {
    get: (name) => repo.get(name),
    getOrInsert: (name, value, now) => repo.getOrInsert(name, value, now),
    put: (name, value, now) => repo.put(name, value, now),
    writeProbe: parts.writeProbe,
  };
}
