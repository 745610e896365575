// Wires repositories and use cases over one store. main.ts, the CLI and the tests all build
// the gateway's services here, so they behave identically.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SecretKey } from '../domain/credentials.ts';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import { originOf } from '../domain/url-origin.ts';
import { createJobRunner } from '../store/job-runner.ts';
import { LedgerRepo } from '../store/repos/ledger.repo.ts';
import { MerchantsRepo } from '../store/repos/merchants.repo.ts';
import type { StoreEngine } from '../store/engine.ts';
import { createTransactionInserter } from '../store/transaction-inserter.ts';
import { TransactionsRepo } from '../store/repos/transactions.repo.ts';
import { CompletePayment } from './complete-payment.ts';
import { STORE_JOBS_MODULE, storeJobs } from '../store/sqlite/jobs.ts';
import { InitiatePayment } from './initiate-payment.ts';
import { ManageMerchants } from './manage-merchants.ts';
import { MerchantDirectory } from './merchant-directory.ts';
import { StoreHealth } from './store-health.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { RefundsRepo } from '../store/repos/refunds.repo.ts';
import { RefundPayment } from './refund-payment.ts';
import { completionsIn } from '../store/postgres/completion-batches.ts';
import { connectorFor, type ProcessorConnector } from './processor-connector.ts';
import { NotificationWaits } from './notification-waits.ts';

export type Services = {
  config: Config;
  store: StoreEngine;
  key: SecretKey;
  now: () => number;
  /** Where notifications may go (§6), from the configuration: checked at initiation and at delivery. */
  outboundPolicy: OutboundPolicy;
  merchants: MerchantsRepo;
  transactions: TransactionsRepo;
  ledger: LedgerRepo;
  directory: MerchantDirectory;
  manageMerchants: ManageMerchants;
  initiate: InitiatePayment;
  complete: CompletePayment;
  /** In-memory counters and histograms behind /metrics (O(1) per scrape). */
  metrics: GatewayMetrics;
  /** Readiness: reachable, and writable again after a reported failure. */
  storeHealth: StoreHealth;
  /**
   * Listeners told after a transaction reached its final state, or a refund was committed: a new
   * notification is due (the delivery worker subscribes). `origin`, when given, is where the
   * notification goes (domain/url-origin.ts), so the worker need not read it back.
   */
  finalisedListeners: Array<(transactionId: string, eventId: string, origin?: string) => void>;
  refunds: RefundsRepo;
  refund: RefundPayment;
  /** Lets the hosted page wait (bounded) for the first delivery attempt of a notification. */
  notificationWaits: NotificationWaits;
};

export function createServices(
  config: Config,
  store: StoreEngine,
  key: SecretKey,
  options: { now?: () => number; logger?: Logger; connector?: ProcessorConnector } = {},
): Services {
  const now = options.now ?? Date.now;
  const merchants = new MerchantsRepo(store.db);
  const transactions = new TransactionsRepo(store.db, { pgPool: store.pgPool });
  const ledger = new LedgerRepo(store.db);
  const finalisedListeners: Services['finalisedListeners'] = [];
  const runJob = createJobRunner(store, storeJobs, STORE_JOBS_MODULE);
  const metrics = new GatewayMetrics({ mode: config.mode, store: store.dialect });
  const refunds = new RefundsRepo(store.db);
  // Resolved when first needed: the CLI builds services in live mode too, and never refunds.
  let connector = options.connector;
  const notifyListeners = (transactionId: string, eventId: string, origin?: string) => {
    for (const listener of finalisedListeners) {
      try {
        listener(transactionId, eventId, origin);
      } catch (error) {
        options.logger?.error({ err: error }, 'finalised listener failed');
      }
    }
  };
  return {
    config,
    store,
    key,
    now,
    outboundPolicy: { mode: config.mode, allowHttp: config.outboundAllowHttp, allowList: config.outboundAllowList },
    merchants,
    transactions,
    ledger,
    metrics,
    storeHealth: new StoreHealth(store, now),
    directory: new MerchantDirectory(merchants, {
      key,
      refreshMs: config.merchantRefreshMs,
      failedLoginLimit: config.failedLoginLimit,
      failedLoginWindowMs: config.failedLoginWindowMs,
      requestRateLimit: config.requestRateLimit,
      now,
    }),
    manageMerchants: new ManageMerchants(merchants, key, config.webhookSecretOverlapMs, now),
    initiate: new InitiatePayment({
      insertOrGet: createTransactionInserter(store, transactions, (record) => runJob('insertTransaction', record)),
      key,
      publicBaseUrl: config.publicBaseUrl,
      ttlMs: config.transactionTtlMs,
      now,
    }),
    complete: new CompletePayment({
      completeInStore: completionsIn(store, (args) => runJob('completePayment', args)),
      now,
      onFinalised: (t, eventId) => {
        metrics.finalised(t.status, t.errorCodeTag);
        // The payment's notification goes to its serverUrl (planCompletion).
        notifyListeners(t.id, eventId, originOf(t.serverUrl));
      },
    }),
    finalisedListeners,
    refunds,
    refund: new RefundPayment({
      store,
      transactions,
      refunds,
      ledger,
      key,
      connector: () => (connector ??= connectorFor(config.mode)),
      now,
      onRefunded: (r, eventId) => notifyListeners(r.transactionId, eventId),
    }),
    notificationWaits: new NotificationWaits(store.db),
  };
}
