// What the delivery worker needs from the rest of the gateway, as narrow injected things, and the
// one function that builds them from `Services`. How events are claimed and released, how
// attempts are recorded (group commit) and how other instances are woken is the store's business
// (app/ports/delivery.ts DeliveryStore); the worker's parts see DeliveryDeps only.
import type { Logger } from 'pino';
import type { DeliveryStore, DeliveryWakeups as StoreWakeups } from '../app/ports/delivery.ts';
import type { FinalisedListener, Services } from '../app/services.ts';
import type { DeliveryOutcome } from '../app/gateway-metrics.ts';
import type { SecretKey } from '../domain/credentials.ts';
import type { MerchantRecord } from '../domain/merchant.ts';
import type { AttemptRecord } from '../domain/outbox-event.ts';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import { AttemptRecorder } from './attempt-recorder.ts';

/** Leases on outbox events (app/ports/delivery.ts DeliveryStore says what each one guarantees). */
export type DeliveryClaims = Pick<
  DeliveryStore,
  'claim' | 'originsOf' | 'release' | 'releaseAllOf' | 'releaseAll' | 'nextDueAt'
>;

/** Wake-ups between instances: `onWake` when another one says "look now"; notify() says it to them. */
export type DeliveryWakeups = {
  start(onWake: () => void): void;
  notify(): void;
  stop(): Promise<void>;
};

export type { FinalisedListener };

/** The configuration values the worker reads. */
export type DeliverySettings = {
  /** Sends in flight at most. */
  concurrency: number;
  /** Sends in flight to one origin at first, and whatever it answers (its window's floor). */
  perHostConcurrency: number;
  /** Sends in flight to one origin at most, once its healthy answers have grown its window. */
  perHostMaxConcurrency: number;
  leaseMs: number;
  timeoutMs: number;
  pollIntervalMs: number;
  retryLadderMs: readonly number[];
  jitterPercent: number;
};

export type DeliveryDeps = {
  claims: DeliveryClaims;
  /** Records one attempt and its transition; resolves with whether the transition was applied. */
  recordAttempt: (record: AttemptRecord) => Promise<boolean>;
  wakeups: DeliveryWakeups | undefined;
  /** Every lease left in the store belongs to a dead predecessor (SQLite: one process per file). */
  releaseAllAtStart: boolean;
  findMerchant: (id: string) => Promise<MerchantRecord | undefined>;
  key: SecretKey;
  now: () => number;
  outboundPolicy: OutboundPolicy;
  settings: DeliverySettings;
  /** Metrics: one attempt made. */
  attemptMade: (outcome: DeliveryOutcome, httpStatus: number | null, seconds: number) => void;
  /** A customer may be waiting on the hosted page for this attempt (app/notification-waits.ts). */
  attemptRecorded: (eventId: string) => void;
  /** Subscribes to events finalised in this process; returns the unsubscribe. */
  onFinalised: (listener: FinalisedListener) => () => void;
};

export function deliveryDepsFrom(services: Services, instanceId: string, logger: Logger): DeliveryDeps {
  const { store, config } = services;
  const deliveries = store.deliveries;
  const recorder = new AttemptRecorder(deliveries.recordAttempts);
  return {
    claims: deliveries,
    recordAttempt: (record) => recorder.record(record),
    wakeups: deliveries.wakeups && instanceWakeups(deliveries.wakeups, instanceId, logger),
    releaseAllAtStart: deliveries.singleProcess,
    // The merchant directory's copy: kept current by its change marker every MERCHANT_REFRESH
    // (and at once after a change made in the console), as for API credentials, so an attempt
    // costs no read (a round trip on PostgreSQL, made while the origin's slot is held). A
    // rotated secret signs within that time; until then the previous secret, which the merchant
    // still accepts during the overlap, signs alone. The store answers for a merchant the
    // directory does not have yet.
    findMerchant: async (id) => services.directory.get(id) ?? (await services.merchants.findById(id)),
    key: services.key,
    now: () => services.now(),
    outboundPolicy: services.outboundPolicy,
    settings: {
      concurrency: config.deliveryConcurrency,
      perHostConcurrency: config.deliveryPerHostConcurrency,
      perHostMaxConcurrency: config.deliveryPerHostMaxConcurrency,
      leaseMs: config.deliveryLeaseMs,
      timeoutMs: config.deliveryTimeoutMs,
      pollIntervalMs: config.deliveryPollIntervalMs,
      retryLadderMs: config.retryLadderMs,
      jitterPercent: config.deliveryJitterPercent,
    },
    attemptMade: (outcome, httpStatus, seconds) => services.metrics.notificationAttempt(outcome, httpStatus, seconds),
    attemptRecorded: (eventId) => services.notificationWaits.attemptRecorded(eventId),
    onFinalised: (listener) => {
      services.finalisedListeners.push(listener);
      return () => {
        const index = services.finalisedListeners.indexOf(listener);
        if (index >= 0) services.finalisedListeners.splice(index, 1);
      };
    },
  };
}

/** Listens for other instances' announcements, and announces this one's finalisations to them. */
function instanceWakeups(wakeups: StoreWakeups, instanceId: string, logger: Logger): DeliveryWakeups {
  let listening: { stop(): Promise<void> } | undefined;
  let notifier: { notify(): void; stop(): void } | undefined;
  return {
    start(onWake) {
      listening = wakeups.listen(instanceId, onWake, logger);
      notifier = wakeups.notifier(instanceId, logger);
    },
    notify() {
      notifier?.notify();
    },
    async stop() {
      notifier?.stop();
      await listening?.stop();
    },
  };
}
