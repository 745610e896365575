// Wires the use cases over one store's ports (composition root). main.ts, the CLI, the delivery
// process and the tests all build the gateway's services here, so they behave identically.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SecretKey } from '../domain/credentials.ts';
import { originOf } from '../domain/url-origin.ts';
import { CompletePayment } from '../app/complete-payment.ts';
import { GatewayMetrics } from '../app/gateway-metrics.ts';
import { InitiatePayment } from '../app/initiate-payment.ts';
import { ManageMerchants } from '../app/manage-merchants.ts';
import { MerchantDirectory } from '../app/merchant-directory.ts';
import { NotificationWaits } from '../app/notification-waits.ts';
import { OpenAttention } from '../app/open-attention.ts';
import type { Store } from '../app/ports/store.ts';
import type { ProcessorConnector } from '../app/ports/processor.ts';
import { RefundPayment } from '../app/refund-payment.ts';
import { RecordTransferRefund } from '../app/record-transfer-refund.ts';
import { ConsoleAudit } from '../app/console/console-audit.ts';
import type { FinalisedListener, ProcessorServices, Services } from '../app/services.ts';
import { StoreHealth } from '../app/store-health.ts';
import { connectorFor } from '../connectors/connector-for.ts';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ClosePayment } from '../app/processor/close-payment.ts';
import { EndPayment } from '../app/processor/end-payment.ts';
import { PaymentQr } from '../app/processor/payment-qr.ts';
import { Reconciler } from '../app/processor/reconciler.ts';
import { ReceiveNotification } from '../app/processor/receive-notification.ts';
import { SyncPayment } from '../app/processor/sync-payment.ts';

export type { Services } from '../app/services.ts';

export function createServices(
  config: Config,
  store: Store,
  key: SecretKey,
  options: { now?: () => number; logger?: Logger; connector?: ProcessorConnector } = {},
): Services {
  const now = options.now ?? Date.now;
  const finalisedListeners: FinalisedListener[] = [];
  const metrics = new GatewayMetrics({ mode: config.mode, store: store.kind });
  metrics.trackDataDirFree(() => store.dataDirFreeBytes());
  // Resolved when first needed: the CLI builds services in live mode too, and never refunds.
  let connector = options.connector;
  const notifyListeners: FinalisedListener = (transactionId, eventId, origin) => {
    for (const listener of finalisedListeners) {
      try {
        listener(transactionId, eventId, origin);
      } catch (error) {
        options.logger?.error({ err: error }, 'finalised listener failed');
      }
    }
  };
  const getConnector = () =>
    (connector ??= connectorFor(config, {
      now,
      ...(options.logger && { logger: options.logger.child({ component: 'processor' }) }),
    }));
  const openAttention = new OpenAttention(store.attention);
  const refund = new RefundPayment({
    store,
    payments: store.payments,
    refunds: store.refunds,
    ledger: store.ledger,
    attempts: store.processorAttempts,
    key,
    connector: getConnector,
    now,
    onRefunded: (r, eventId) => notifyListeners(r.transactionId, eventId),
  });
  const complete = new CompletePayment({
    completions: store.completions,
    now,
    onFinalised: (t, eventId) => {
      metrics.finalised(t.status, t.errorCodeTag);
      // The payment's notification goes to its serverUrl (domain/completion.ts).
      notifyListeners(t.id, eventId, originOf(t.serverUrl));
    },
  });
  return {
    config,
    store,
    key,
    now,
    outboundPolicy: {
      mode: config.mode,
      allowHttp: config.outboundAllowHttp,
      allowList: config.outboundAllowList,
      publicOnly: config.outboundPublicOnly,
    },
    merchants: store.merchants,
    transactions: store.payments,
    ledger: store.ledger,
    metrics,
    storeHealth: new StoreHealth(store, now),
    directory: new MerchantDirectory(store.merchants, {
      key,
      refreshMs: config.merchantRefreshMs,
      failedLoginLimit: config.failedLoginLimit,
      failedLoginWindowMs: config.failedLoginWindowMs,
      requestRateLimit: config.requestRateLimit,
      now,
    }),
    manageMerchants: new ManageMerchants(
      store.merchants,
      store.consoleAccounts,
      key,
      config.webhookSecretOverlapMs,
      now,
    ),
    initiate: new InitiatePayment({
      insertOrGet: store.payments.insertOrGet,
      key,
      publicBaseUrl: config.publicBaseUrl,
      ttlMs: config.transactionTtlMs,
      now,
    }),
    complete,
    finalisedListeners,
    refunds: store.refunds,
    refund,
    // Audited in the console's log, whoever records it (the console or the CLI).
    recordTransfer: new RecordTransferRefund({
      refund,
      payments: store.payments,
      audit: new ConsoleAudit(store.consoleAccounts, now),
    }),
    notificationWaits: new NotificationWaits(store.outbox),
    processor: processorServices(store, getConnector, complete, openAttention, now, options.logger),
    openAttention,
  };
}

/** The live-payment use cases over the processor connector (app/processor/; docs/connectors/kbank.md). */
function processorServices(
  store: Store,
  connector: () => ProcessorConnector,
  complete: CompletePayment,
  openAttention: OpenAttention,
  now: () => number,
  logger: Logger | undefined,
): ProcessorServices {
  const warn = (details: object, message: string) => logger?.warn(details, message);
  const sync = new SyncPayment({
    connector,
    attempts: store.processorAttempts,
    payments: store.payments,
    refunds: store.refunds,
    // Raises are counted in process, so the metric and the menu move at once (app/open-attention.ts).
    attention: openAttention.counting(store.attention),
    complete,
    completions: store.completions,
    merchants: store.merchants,
    now,
    warn,
  });
  const close = new ClosePayment({ connector, attempts: store.processorAttempts, sync, complete, now });
  const reconciler = new Reconciler({
    connector,
    attempts: store.processorAttempts,
    payments: store.payments,
    sync,
    now,
    owner: `reconciler/${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`,
    logger: logger?.child({ component: 'reconciler' }) ?? silentLogger,
    perSecond: 5,
    pollMs: 15_000,
  });
  return {
    connector,
    sync,
    end: new EndPayment({ connector, payments: store.payments, close, complete }),
    paymentQr: new PaymentQr({ connector, attempts: store.processorAttempts, sync, now }),
    reconciler,
    receiveNotification: new ReceiveNotification({
      connector,
      attempts: store.processorAttempts,
      notifications: store.processorNotifications,
      checkSoon: (reference) => reconciler.checkSoon(reference),
      now,
    }),
  };
}

const silentLogger = { info() {}, warn() {}, error() {}, debug() {} };
