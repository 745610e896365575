// What wakes the worker for a full claim, besides a payment finalised in this process (the claim
// loop takes those itself): other instances (PostgreSQL LISTEN/NOTIFY, store/postgres/wakeups.ts), a timer for
// this instance's own next retry, and a poll as the fallback for everything else. A wake-up only
// says "look now"; the outbox is the truth.
import type { Logger } from 'pino';
import type { DeliveryClaims, DeliveryWakeups } from './deliver-deps.ts';

export type WakeupsParts = {
  claims: Pick<DeliveryClaims, 'nextDueAt'>;
  /** Between instances; undefined where there are none to hear from (SQLite). */
  wakeups: DeliveryWakeups | undefined;
  pollIntervalMs: number;
  now: () => number;
  /** A full claim. */
  wake: () => Promise<void>;
  logger: Logger;
};

export class Wakeups {
  readonly #parts: WakeupsParts;
  #stopping = false;
  #poll: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryTimerAt = Infinity;

  constructor(parts: WakeupsParts) {
    this.#parts = parts;
  }

  /** Starts listening and polling, and looks once now. */
  start(): void {
    const { wakeups, wake, pollIntervalMs } = this.#parts;
    wakeups?.start(() => void wake());
    this.#poll = setInterval(() => void wake(), pollIntervalMs);
    this.#poll.unref();
    void wake().then(() => this.#timeNextRetry());
  }

  stop(): Promise<void> {
    this.#stopping = true;
    if (this.#poll) clearInterval(this.#poll);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    return this.#parts.wakeups?.stop() ?? Promise.resolve();
  }

  /** Other instances may have free slots: tell them once per event-loop turn, after the commit. */
  notifyOthers(): void {
    this.#parts.wakeups?.notify();
  }

  /** A timer for our own retry, so a short rung does not wait for the poll. */
  wakeAt(at: number): void {
    if (this.#stopping || at >= this.#retryTimerAt) return;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimerAt = at;
    this.#armRetryTimer(at);
  }

  #armRetryTimer(at: number): void {
    const { now, wake } = this.#parts;
    this.#retryTimer = setTimeout(
      () => {
        // Timers run on libuv's cached loop time, so under load one can fire a few ms before the
        // clock reaches `at`; claiming then would find nothing due and the retry would wait for
        // the poll. Re-arm for the remainder instead.
        if (now() < at) return this.#armRetryTimer(at);
        this.#retryTimer = undefined;
        this.#retryTimerAt = Infinity;
        void wake().then(() => this.#timeNextRetry());
      },
      Math.max(0, Math.ceil(at - now())),
    );
    this.#retryTimer.unref();
  }

  /** One timer covers only the earliest retry; the store knows the next one. */
  async #timeNextRetry(): Promise<void> {
    try {
      const at = await this.#parts.claims.nextDueAt();
      // Due already but not claimed means its origin is full; a finishing send wakes us then.
      if (at !== null && at > this.#parts.now()) this.wakeAt(at);
    } catch (error) {
      this.#parts.logger.debug({ err: error }, 'could not read the next retry time; the poll covers it');
    }
  }
}
