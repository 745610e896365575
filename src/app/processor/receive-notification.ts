// A notification from the processor (docs/connectors/kbank.md "Callback"). It is only a hint —
// nothing authenticates it — so it is logged, answered at once, and acted on only through a
// query: the attempt it names is checked now, and only the processor's answer to that query can
// complete a payment. A forged notification therefore costs one query and changes nothing.
import { randomUUID } from 'node:crypto';
import type { ProcessorAttemptStore, ProcessorNotificationStore } from '../ports/processor-store.ts';
import type { ProcessorConnector } from '../ports/processor.ts';

/** A notification's record id. */
export function newNotificationId(): string {
  return `ntf_${randomUUID()}`;
}

/** The largest notification body kept (the route refuses larger ones before this). */
const MAX_KEPT_BODY = 4096;

export type ReceiveNotificationDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'find'>;
  notifications: Pick<ProcessorNotificationStore, 'record'>;
  /** Checks an attempt now (the reconciler's checkSoon). */
  checkSoon: (reference: string) => Promise<void>;
  now: () => number;
};

export type NotificationOutcome = 'checked' | 'duplicate' | 'unknown' | 'unreadable';

export class ReceiveNotification {
  readonly #deps: ReceiveNotificationDeps;
  constructor(deps: ReceiveNotificationDeps) {
    this.#deps = deps;
  }

  /**
   * Records and checks one notification. `id` names its record (processor_notifications.id): a
   * route that must tell the processor its id for it (SCB's confirmId) makes it; new otherwise.
   */
  async receive(
    body: Buffer,
    contentType: string | undefined,
    sourceIp: string | undefined,
    id = newNotificationId(),
  ): Promise<NotificationOutcome> {
    const connector = this.#deps.connector();
    const hint = connector.parseNotification(body, contentType);
    const attempt = hint.ok ? await this.#deps.attempts.find(hint.reference) : undefined;
    const outcome: NotificationOutcome = !hint.ok ? 'unreadable' : attempt ? 'checked' : 'unknown';
    const logged = await this.#deps.notifications.record(
      {
        id,
        connector: connector.name,
        receivedAt: this.#deps.now(),
        sourceIp: sourceIp ?? null,
        body: body.subarray(0, MAX_KEPT_BODY).toString('utf8'),
        reference: hint.ok ? hint.reference : null,
        processorTxnNo: hint.ok ? hint.processorTxnNo : null,
        transactionId: attempt?.transactionId ?? null,
        outcome,
      },
      // The same payment reported twice is checked once. Only a report naming the processor's
      // transaction number counts as "the same": a forged one without it must not take the slot
      // of a genuine one (each is checked; the reconciler paces the queries).
      hint.ok && attempt && hint.processorTxnNo !== null ? `${hint.reference}:${hint.processorTxnNo}` : null,
    );
    if (logged.duplicate) return 'duplicate';
    if (attempt) await this.#deps.checkSoon(attempt.reference);
    return outcome;
  }
}
