// Bank → partner deliveries shared by the bank simulators: KBank's payment callbacks
// (docs/connectors/kbank-sim.md) and SCB's payment confirmations (docs/connectors/scb-sim.md). A
// delivery POSTs one JSON text to a URL, is tried `attempts` times `intervalMs` apart until the
// receiver's answer is accepted (each bank says what it accepts), each attempt within `timeoutMs`.
//
// Timers here are REAL timers (retry interval, `delay:<ms>`), not the injected clock: the clock
// is the bank's business time, these are the network's. Every delivery is a promise the tests
// can await; `idle()` waits for all of them, `close()` cancels what is still waiting.
//
// How a delivery is sent (its `timing`; a bank's own modes may also change the body, which is
// the caller's business):
//   normal           as configured
//   drop             send nothing (a lost delivery)
//   delay:<ms>       send <ms> later
//   duplicate:<n>    send the same body n times, one after the other
//   reorder          hold it until the next other delivery has been sent, then send it
import { bangkokIso, type SimClock } from './clock.ts';

export type DeliveryPolicy = {
  /** Tries per delivery (the first and its resends). */
  attempts: number;
  /** Real milliseconds between tries. */
  intervalMs: number;
  /** Real milliseconds a try may take. */
  timeoutMs: number;
};

export type DeliveryTiming =
  | { kind: 'normal' }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'duplicate'; copies: number }
  | { kind: 'reorder' };

export type DeliveryAttempt = {
  /** The simulator's clock when the attempt started. */
  at: string;
  status: number | null;
  answer: string | null;
  error: string | null;
  ok: boolean;
  /** Real milliseconds the attempt took. */
  tookMs: number;
};

export type DeliveryOutcome = 'pending' | 'held' | 'delivered' | 'failed' | 'dropped' | 'no-callback-url' | 'cancelled';

/** What the receiver must answer for a try to count as delivered; `refusal` names the rule in the log. */
export type Acceptance = { accepts(status: number, text: string): boolean; refusal: string };

/** One delivery: `subject` names what it is about (a bank's own ids), then the same record for every bank. */
export type Delivery<S extends object> = { id: number } & S & {
    mode: string;
    url: string | null;
    body: string;
    outcome: DeliveryOutcome;
    attempts: DeliveryAttempt[];
  };

const MAX_ANSWER_TEXT = 2_000;

export class Dispatcher<S extends object> {
  readonly #policy: () => DeliveryPolicy;
  readonly #clock: SimClock;
  readonly #acceptance: Acceptance;
  readonly #deliveries: Array<Delivery<S>> = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #held: Array<(release: boolean) => void> = [];
  readonly #sleeping = new Set<{ timer: NodeJS.Timeout; wake: (ran: boolean) => void }>();
  readonly #closing = new AbortController();

  /** `policy` is read at each delivery, so a simulator may change it while running. */
  constructor(policy: () => DeliveryPolicy, clock: SimClock, acceptance: Acceptance) {
    this.#policy = policy;
    this.#clock = clock;
    this.#acceptance = acceptance;
  }

  /** Starts a delivery; the promise settles with its record when it is over (never rejects). */
  deliver(subject: S, url: string | null, body: string, timing: DeliveryTiming, mode: string): Promise<Delivery<S>> {
    const delivery = {
      id: this.#deliveries.length + 1,
      ...subject,
      mode,
      url,
      body,
      outcome: 'pending',
      attempts: [],
    } as Delivery<S>;
    this.#deliveries.push(delivery);
    const run = this.#closing.signal.aborted
      ? Promise.resolve(void (delivery.outcome = 'cancelled'))
      : this.#run(delivery, timing);
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run.then(() => structuredClone(delivery));
  }

  deliveries(): Array<Delivery<S>> {
    return structuredClone(this.#deliveries);
  }

  /** Resolves when no delivery is under way (held `reorder` deliveries count as under way). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Cancels waiting deliveries (held, delayed, between attempts) and aborts attempts in flight. */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const release of this.#held.splice(0)) release(false);
    for (const sleeper of this.#sleeping) {
      clearTimeout(sleeper.timer);
      sleeper.wake(false);
    }
    await Promise.allSettled([...this.#pending]);
  }

  async #run(delivery: Delivery<S>, timing: DeliveryTiming): Promise<void> {
    if (delivery.url === null) {
      delivery.outcome = 'no-callback-url';
      return;
    }
    if (timing.kind === 'drop') {
      delivery.outcome = 'dropped';
      return;
    }
    if (timing.kind === 'delay' && !(await this.#sleep(timing.ms))) {
      delivery.outcome = 'cancelled';
      return;
    }
    if (timing.kind === 'reorder') {
      delivery.outcome = 'held';
      if (!(await new Promise<boolean>((release) => this.#held.push(release)))) {
        delivery.outcome = 'cancelled';
        return;
      }
    }
    const copies = timing.kind === 'duplicate' ? timing.copies : 1;
    let allDelivered = true;
    for (let copy = 0; copy < copies; copy++) {
      const sent = await this.#send(delivery, delivery.url);
      if (sent === 'cancelled') {
        delivery.outcome = 'cancelled';
        return;
      }
      allDelivered &&= sent === 'delivered';
    }
    delivery.outcome = allDelivered ? 'delivered' : 'failed';
    // What was held for reordering goes now, after this one.
    if (timing.kind !== 'reorder') for (const release of this.#held.splice(0)) release(true);
  }

  async #send(delivery: Delivery<S>, url: string): Promise<'delivered' | 'failed' | 'cancelled'> {
    const { attempts, intervalMs, timeoutMs } = this.#policy();
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1 && !(await this.#sleep(intervalMs))) return 'cancelled';
      if (this.#closing.signal.aborted) return 'cancelled';
      const record: DeliveryAttempt = {
        at: bangkokIso(this.#clock.now()),
        status: null,
        answer: null,
        error: null,
        ok: false,
        tookMs: 0,
      };
      const started = performance.now();
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: delivery.body,
          redirect: 'manual',
          signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(timeoutMs)]),
        });
        const answer = await response.text();
        record.status = response.status;
        record.answer = answer.slice(0, MAX_ANSWER_TEXT);
        record.ok = this.#acceptance.accepts(response.status, answer);
        if (!record.ok) record.error = this.#acceptance.refusal;
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        record.error = cause ?? (error instanceof Error ? error.name : String(error));
      }
      record.tookMs = Math.round(performance.now() - started);
      delivery.attempts.push(record);
      if (record.ok) return 'delivered';
      if (this.#closing.signal.aborted) return 'cancelled';
    }
    return 'failed';
  }

  /** A cancellable real-time wait: false when close() cut it short. */
  #sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.#sleeping.delete(sleeper);
          resolve(true);
        }, ms),
        wake: resolve,
      };
      this.#sleeping.add(sleeper);
    });
  }
}

/** The timing part of a mode: drop, delay, duplicate and reorder; every other mode is sent normally. */
export function timingOf(mode: { kind: string; ms?: number; copies?: number }): DeliveryTiming {
  switch (mode.kind) {
    case 'drop':
    case 'reorder':
      return { kind: mode.kind };
    case 'delay':
      return { kind: 'delay', ms: mode.ms ?? 0 };
    case 'duplicate':
      return { kind: 'duplicate', copies: mode.copies ?? 1 };
    default:
      return { kind: 'normal' };
  }
}
