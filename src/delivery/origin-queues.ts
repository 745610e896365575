// The events this instance has leased, per origin, and the send slots they start in.
//
// - Fairness: at most `deliveryConcurrency` sends in flight, and at most the origin's window
//   (origin-window.ts: from `perHostConcurrency` up to `perHostMaxConcurrency`, growing while it
//   answers healthily) to one origin, so one slow merchant endpoint cannot occupy every slot. A
//   slot is free as soon as its HTTP exchange ends; recording the attempt is group committed
//   (attempt-recorder.ts) and does not hold a slot, so the batches grow with the load
//   instead of the sends waiting for each commit. What this instance holds at once (queued,
//   sending and not yet recorded) is bounded by `deliveryConcurrency` × MAX_ROUNDS_AHEAD.
// - Lease ahead: a claim may lease several rounds of an origin's window (its depth). What
//   cannot start at once waits in that origin's queue here and starts the moment one of its sends
//   ends, without a claim (a claim is a commit) between two sends. The depth follows the origin's
//   pace: PREFETCH_ROUNDS rounds until its sends have been timed, then as many rounds (MIN_ROUNDS
//   to MAX_ROUNDS_AHEAD) as it gets through in a quarter of the lease, so a fast endpoint's queue
//   covers the time a claim takes and a slow one's is never held for long. The caps above still
//   bound what is *sent*; a queued event whose lease is half gone is given back, not sent late.
//   A queued event is still pending in the store: a crash or stop gives its lease back (stop) or
//   lets it expire (SQLite releases every lease at start), so at-least-once is unchanged.
import type { Logger } from 'pino';
import type { OutboxEvent } from '../domain/outbox-event.ts';
import type { DeliverySettings } from './deliver-deps.ts';
import { OriginWindows, type ExchangeHealth } from './origin-window.ts';

/** Events of one origin leased at most, until its pace is known: this many times its window. */
const PREFETCH_ROUNDS = 4;
/** Bounds on the rounds leased ahead once the pace is known. */
const MIN_ROUNDS = 2;
const MAX_ROUNDS_AHEAD = 16;
/** Origins whose pace is remembered at most (the memo starts over past this). */
const MAX_PACES = 10_000;
/**
 * How long an origin's send slot stays taken after an attempt that got no HTTP answer (refused,
 * unreachable, timed out): with the window's floor of 4, a dead endpoint gets at most 16 attempts
 * a second, whatever its backlog (see #launch).
 */
export const UNREACHABLE_HOLD_MS = 250;

/** Makes one attempt; calls `sent` once its HTTP exchange is over, saying how it went. */
export type SendOne = (event: OutboxEvent, sent: (latencyMs: number, health: ExchangeHealth) => void) => Promise<void>;

/** What the queues tell the claim loop. */
export type QueueEvents = {
  /** An event of `origin` is given back: the store has events of it again. */
  givingBack(origin: string): void;
  /** A given-back lease is free again. */
  givenBack(): void;
  /** A send slot of `origin` is free. */
  slotFreed(origin: string): void;
  /** An attempt was recorded and a batch worth of room (`deliveryConcurrency`) is free. */
  roomFreed(): void;
};

export type OriginQueuesParts = {
  settings: Pick<DeliverySettings, 'concurrency' | 'perHostConcurrency' | 'perHostMaxConcurrency' | 'leaseMs'>;
  now: () => number;
  send: SendOne;
  /** Gives leases back to the store (this instance's). */
  giveBack: (ids: string[]) => Promise<void>;
  events: QueueEvents;
  logger: Logger;
};

export class OriginQueues {
  readonly #parts: OriginQueuesParts;
  /** Launched and not yet recorded (sending, or waiting for the attempt's commit). */
  readonly #inflight = new Map<string, Promise<void>>();
  /** HTTP exchanges under way (the `deliveryConcurrency` slots). */
  #sending = 0;
  /** Sends in flight (HTTP exchange not over yet) per origin. */
  readonly #perOrigin = new Map<string, number>();
  /** Leased ahead, not started yet, per origin (oldest first), with when each was claimed. */
  readonly #queued = new Map<string, Array<{ event: OutboxEvent; claimedAt: number }>>();
  #queuedCount = 0;
  /** Origin slots kept after an attempt that got no answer, until UNREACHABLE_HOLD_MS has passed (see #launch). */
  readonly #holds = new Set<Promise<void>>();
  /** Recent milliseconds per HTTP exchange, per origin (moving average). */
  readonly #pace = new Map<string, number>();
  /** Sends in flight each origin may have now. */
  readonly #windows: OriginWindows;
  #stopping = false;

  constructor(parts: OriginQueuesParts) {
    this.#parts = parts;
    this.#windows = new OriginWindows(parts.settings.perHostConcurrency, parts.settings.perHostMaxConcurrency);
  }

  /** Sends `origin` may have in flight now (its window). */
  window(origin: string): number {
    return this.#windows.size(origin);
  }

  get inFlight(): number {
    return this.#inflight.size;
  }

  /** Every `deliveryConcurrency` slot is sending. */
  get sendSlotsFull(): boolean {
    return this.#sending >= this.#parts.settings.concurrency;
  }

  /** Something is sending or being recorded, or a held origin slot may still start queued events when it ends. */
  get busy(): boolean {
    return this.#inflight.size > 0 || this.#holds.size > 0;
  }

  /** Resolves once what is in flight or held now is over. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inflight.values(), ...this.#holds]);
  }

  /** Resolves once nothing is in flight (each send ends by its own deadline, then is recorded). */
  async drained(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
  }

  /** No queued event starts from now on, and no origin slot is held. */
  stop(): void {
    this.#stopping = true;
  }

  /** Forgets the queued events (their leases go back with the rest). */
  clear(): void {
    this.#queued.clear();
    this.#queuedCount = 0;
  }

  /** Events of `origin` this instance holds: sending plus queued. */
  held(origin: string): number {
    return (this.#perOrigin.get(origin) ?? 0) + (this.#queued.get(origin)?.length ?? 0);
  }

  /** How many more events may be leased now: the bound on what is held (queued, sending, recording), less what is. */
  room(): number {
    return this.#parts.settings.concurrency * MAX_ROUNDS_AHEAD - this.#inflight.size - this.#queuedCount;
  }

  /** Events of `origin` to hold at most (sending + queued): see "Lease ahead" at the top. */
  depth(origin: string): number {
    const { leaseMs } = this.#parts.settings;
    const cap = this.#windows.size(origin);
    const pace = this.#pace.get(origin);
    if (pace === undefined) return cap * PREFETCH_ROUNDS;
    return cap * Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS_AHEAD, Math.floor(leaseMs / 4 / Math.max(1, pace))));
  }

  /** Queues events just claimed, behind those of their origin already queued. */
  enqueue(events: readonly OutboxEvent[], claimedAt: number): void {
    for (const event of events) {
      const queue = this.#queued.get(event.origin);
      if (queue) queue.push({ event, claimedAt });
      else this.#queued.set(event.origin, [{ event, claimedAt }]);
      this.#queuedCount++;
    }
  }

  #timed(origin: string, ms: number): void {
    const pace = this.#pace.get(origin);
    if (pace === undefined && this.#pace.size >= MAX_PACES) this.#pace.clear();
    this.#pace.set(origin, pace === undefined ? ms : pace * 0.8 + ms * 0.2);
  }

  /** Starts queued events wherever both a global and an origin slot are free, origins in turn. */
  startQueued(): void {
    if (this.#stopping) return;
    const { concurrency, leaseMs } = this.#parts.settings;
    let started = true;
    while (started && this.#queuedCount > 0 && this.#sending < concurrency) {
      started = false;
      for (const [origin, queue] of this.#queued) {
        if (this.#sending >= concurrency) return;
        if ((this.#perOrigin.get(origin) ?? 0) >= this.#windows.size(origin)) continue;
        const next = queue.shift()!;
        this.#queuedCount--;
        // Round robin: this origin goes to the back (or away when its queue is empty).
        this.#queued.delete(origin);
        if (queue.length > 0) this.#queued.set(origin, queue);
        if (this.#parts.now() - next.claimedAt > leaseMs / 2) {
          // Too close to its lease's end to be sent safely: give it back for a fresh claim.
          this.#parts.events.givingBack(origin);
          this.#parts
            .giveBack([next.event.id])
            .then(() => this.#parts.events.givenBack())
            .catch((error) =>
              this.#parts.logger.debug({ err: error }, 'could not give back a queued delivery; its lease expires'),
            );
        } else {
          this.#launch(next.event);
        }
        started = true;
        break;
      }
    }
  }

  #launch(event: OutboxEvent): void {
    const origin = event.origin;
    this.#perOrigin.set(origin, (this.#perOrigin.get(origin) ?? 0) + 1);
    this.#sending++;
    // Both slots are about sending, so they are freed as soon as the HTTP exchange ends; the
    // lease is held (and the event counted as held) until the attempt is recorded. After an
    // attempt that got no HTTP answer at all (refused, unreachable, timed out), the origin's slot
    // is kept a little longer (UNREACHABLE_HOLD_MS): a dead endpoint refuses at once, and
    // without the pause its backlog's attempts would run as fast as the CPU allows, taking time
    // from every other merchant's payments and notifications. Every attempt is still made and
    // stored; a dead endpoint only gets at most its window's floor of attempts per pause (no
    // answer shrinks the window to the floor, origin-window.ts).
    let sendingHeld = true;
    let originHeld = true;
    const releaseOrigin = () => {
      if (!originHeld) return;
      originHeld = false;
      const left = (this.#perOrigin.get(origin) ?? 1) - 1;
      if (left > 0) this.#perOrigin.set(origin, left);
      else this.#perOrigin.delete(origin);
      this.startQueued();
      this.#parts.events.slotFreed(origin);
    };
    const freeOrigin = (holdOriginMs = 0) => {
      if (!sendingHeld) return;
      sendingHeld = false;
      this.#sending--;
      if (holdOriginMs > 0 && !this.#stopping) {
        const hold: Promise<void> = new Promise((resolve) => {
          setTimeout(() => {
            this.#holds.delete(hold);
            releaseOrigin();
            resolve();
          }, holdOriginMs).unref();
        });
        this.#holds.add(hold);
        // The global slot is free already: another origin's queued event may start.
        this.startQueued();
      } else releaseOrigin();
    };
    const sent = (latencyMs: number, health: ExchangeHealth) => {
      this.#timed(origin, latencyMs);
      this.#windows.exchanged(origin, health);
      freeOrigin(health === 'unreachable' ? UNREACHABLE_HOLD_MS : 0);
    };
    const done = this.#parts
      .send(event, sent)
      .catch((error) =>
        this.#parts.logger.error(
          { err: error, eventId: event.id },
          'delivery attempt could not be recorded; it is retried when its lease expires',
        ),
      )
      .finally(() => {
        this.#inflight.delete(event.id);
        freeOrigin();
        this.startQueued();
        // Recording frees room; the claim loop decides what a batch worth of it is for.
        if (this.room() < this.#parts.settings.concurrency) return;
        this.#parts.events.roomFreed();
      });
    this.#inflight.set(event.id, done);
  }
}
