// The gateway's use cases and the ports they run on, as the composition root (compose/services.ts)
// builds them for one store. The CLI, the delivery process and the tests build the same.
import type { Config } from '../config.ts';
import type { SecretKey } from '../domain/credentials.ts';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import type { CompletePayment } from './complete-payment.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { InitiatePayment } from './initiate-payment.ts';
import type { ManageMerchants } from './manage-merchants.ts';
import type { MerchantDirectory } from './merchant-directory.ts';
import type { NotificationWaits } from './notification-waits.ts';
import type { OpenAttention } from './open-attention.ts';
import type { LedgerReads, MerchantStore, PaymentStore, RefundReads, Store } from './ports/store.ts';
import type { RecordTransferRefund } from './record-transfer-refund.ts';
import type { RefundPayment } from './refund-payment.ts';
import type { StoreHealth } from './store-health.ts';
import type { ProcessorConnector } from './ports/processor.ts';
import type { EndPayment } from './processor/end-payment.ts';
import type { PaymentQr } from './processor/payment-qr.ts';
import type { Reconciler } from './processor/reconciler.ts';
import type { ReceiveNotification } from './processor/receive-notification.ts';
import type { SyncPayment } from './processor/sync-payment.ts';

/**
 * Told after a transaction reached its final state, or a refund was committed: a new
 * notification is due (the delivery worker subscribes). `origin`, when given, is where the
 * notification goes (domain/url-origin.ts), so the worker need not read it back.
 */
export type FinalisedListener = (transactionId: string, eventId: string, origin?: string) => void;

export type Services = {
  config: Config;
  store: Store;
  key: SecretKey;
  now: () => number;
  /**
   * Where notifications may go (docs/notifications.md), from the configuration: checked at initiation and at
   * delivery.
   */
  outboundPolicy: OutboundPolicy;
  merchants: MerchantStore;
  transactions: PaymentStore;
  ledger: LedgerReads;
  directory: MerchantDirectory;
  manageMerchants: ManageMerchants;
  initiate: InitiatePayment;
  complete: CompletePayment;
  /** In-memory counters and histograms behind /metrics (O(1) per scrape). */
  metrics: GatewayMetrics;
  /** Readiness: reachable, and writable again after a reported failure. */
  storeHealth: StoreHealth;
  finalisedListeners: FinalisedListener[];
  refunds: RefundReads;
  refund: RefundPayment;
  /** A refund already paid by bank transfer, recorded (the console's form and `refund record`). */
  recordTransfer: RecordTransferRefund;
  /** Lets the hosted page wait (bounded) for the first delivery attempt of a notification. */
  notificationWaits: NotificationWaits;
  processor: ProcessorServices;
  /** The open needs-attention items' count, in memory (the metric and the console's menu). */
  openAttention: OpenAttention;
};

/** Live payments through the processor connector (app/processor/). */
export type ProcessorServices = {
  connector: () => ProcessorConnector;
  sync: SyncPayment;
  end: EndPayment;
  paymentQr: PaymentQr;
  reconciler: Reconciler;
  receiveNotification: ReceiveNotification;
};
