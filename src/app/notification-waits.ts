// The customer returns only after the result was sent (docs/notifications.md "How it works"). After
// Confirm/Cancel on the hosted page, and when the page's status poll hands the customer back, the
// gateway waits — at most RETURN_WAIT_FOR_NOTIFICATION — until the first delivery attempt of the
// payment's result notification has been recorded (delivered or not), then redirects whatever
// happened. Otherwise the shop's thank-you page, reached a few milliseconds before the
// notification, says "awaiting payment confirmation" for a payment that succeeded.
//
// Two ways to learn of the attempt: this instance's delivery worker calls attemptRecorded()
// right after recording it (no delay), and a store poll catches an attempt recorded by another
// instance (several instances behind one load balancer, the notification claimed elsewhere).
import type { OutboxReads } from './ports/store.ts';

/** How often the store is asked while waiting, for attempts another instance records. */
const POLL_MS = 100;

export type WaitOutcome = 'attempted' | 'timed_out' | 'disabled' | 'no_notification';

export class NotificationWaits {
  readonly #outbox: Pick<OutboxReads, 'resultEventAttempted'>;
  readonly #pollMs: number;
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(outbox: Pick<OutboxReads, 'resultEventAttempted'>, options: { pollMs?: number } = {}) {
    this.#outbox = outbox;
    this.#pollMs = options.pollMs ?? POLL_MS;
  }

  /** The delivery worker recorded an attempt of this event: release everyone waiting for it. */
  attemptRecorded(eventId: string): void {
    const waiting = this.#waiters.get(eventId);
    if (!waiting) return;
    this.#waiters.delete(eventId);
    for (const release of waiting) release();
  }

  /** Customers waiting right now (for tests and metrics). */
  get waiting(): number {
    let n = 0;
    for (const set of this.#waiters.values()) n += set.size;
    return n;
  }

  /**
   * Resolves once the first attempt of the transaction's result notification is recorded, or
   * after `boundMs` (real time), whichever comes first. Never throws: a store error ends the wait.
   */
  async waitForFirstAttempt(transactionId: string, boundMs: number): Promise<WaitOutcome> {
    if (boundMs <= 0) return 'disabled';
    const first = await this.#outbox.resultEventAttempted(transactionId).catch(() => undefined);
    if (!first) return 'no_notification';
    if (first.attempted) return 'attempted';
    const eventId = first.eventId;

    return new Promise<WaitOutcome>((resolve) => {
      let settled = false;
      let poll: NodeJS.Timeout | undefined;
      const finish = (outcome: WaitOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(poll);
        const set = this.#waiters.get(eventId);
        set?.delete(release);
        if (set && set.size === 0) this.#waiters.delete(eventId);
        resolve(outcome);
      };
      const release = () => finish('attempted');
      const deadline = setTimeout(() => finish('timed_out'), boundMs);
      const set = this.#waiters.get(eventId) ?? new Set();
      set.add(release);
      this.#waiters.set(eventId, set);
      const probe = () => {
        poll = setTimeout(async () => {
          const state = await this.#outbox.resultEventAttempted(transactionId).catch(() => undefined);
          if (settled) return;
          if (state?.attempted) finish('attempted');
          else probe();
        }, this.#pollMs);
      };
      probe();
    });
  }
}
