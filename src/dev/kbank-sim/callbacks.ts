// Payment callbacks (§4.8): the bank POSTs JSON to the URL the merchant registered with KBank.
// A delivery succeeds when the receiver answers 2xx with a JSON body whose statusCode is "00";
// it is tried `callback.attempts` times (default 1: KBank's retry policy is not published, so a
// connector must survive a lost callback), `intervalMs` apart, each within `timeoutMs`.
//
// Timers here are REAL timers (retry interval, `delay:<ms>`), not the injected clock: the clock
// is the bank's business time, these are the network's. Every delivery is a promise the tests
// can await (`deliverCallback`, `idle()`); close() cancels what is still waiting.
//
// Modes (POST /__sim/callback/<uid> {mode}, or `callback` when paying):
//   normal           deliver (again) as configured
//   drop             send nothing (a lost callback)
//   delay:<ms>       deliver <ms> later
//   duplicate:<n>    deliver the same body n times, one after the other
//   reorder          hold it until the next other callback has been delivered, then deliver it
//   wrongAmount      txnAmount 1.00 THB more than the QR's
//   wrongMerchant    another merchantId
//   statusCode10     statusCode "10" with an error
//   forged           a partnerTxnUid (and txnNo) the bank never issued
//   malformedJson    the body cut in half
import { satangNumber } from './amounts.ts';
import { bangkokIso, type SimClock } from './clock.ts';
import type { SimConfig } from './config.ts';
import { bankError } from './errors.ts';
import type { SeededIds } from './ids.ts';
import { parseJsonObject, toWireJson } from './wire-json.ts';

export type CallbackMode =
  | { kind: 'normal' }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'duplicate'; copies: number }
  | { kind: 'reorder' }
  | { kind: 'wrongAmount' }
  | { kind: 'wrongMerchant' }
  | { kind: 'statusCode10' }
  | { kind: 'forged' }
  | { kind: 'malformedJson' };

export class CallbackModeError extends Error {}

const SIMPLE_MODES = [
  'normal',
  'drop',
  'reorder',
  'wrongAmount',
  'wrongMerchant',
  'statusCode10',
  'forged',
  'malformedJson',
] as const;

export function parseCallbackMode(text: string = 'normal'): CallbackMode {
  for (const kind of SIMPLE_MODES) if (text === kind) return { kind };
  const delay = /^delay:(\d{1,7})$/.exec(text);
  if (delay) return { kind: 'delay', ms: Number(delay[1]) };
  const duplicate = /^duplicate:(\d{1,3})$/.exec(text);
  if (duplicate && Number(duplicate[1]) >= 1) return { kind: 'duplicate', copies: Number(duplicate[1]) };
  throw new CallbackModeError(
    `unknown callback mode ${JSON.stringify(text)}: ${SIMPLE_MODES.join(', ')}, delay:<ms>, duplicate:<n>`,
  );
}

export function callbackModeText(mode: CallbackMode): string {
  if (mode.kind === 'delay') return `delay:${mode.ms}`;
  if (mode.kind === 'duplicate') return `duplicate:${mode.copies}`;
  return mode.kind;
}

/** What a callback is about: a paid QR (or, for `forged`, a template for one). */
export type CallbackSource = {
  partnerTxnUid: string;
  partnerId: string;
  merchantId: string;
  satang: bigint;
  txnNo: string | null;
  loyaltyId: string | null;
};

/** The §4.8 body, with the fault a mode puts in it; the text that goes on the wire. */
export function callbackBody(source: CallbackSource, mode: CallbackMode, ids: SeededIds): string {
  const forged = mode.kind === 'forged';
  const error = mode.kind === 'statusCode10' ? bankError('EMG') : null;
  const body = {
    partnerTxnUid: forged ? `FORGED${ids.digits('forged-uid', 9)}` : source.partnerTxnUid,
    partnerId: source.partnerId,
    statusCode: error === null ? '00' : '10',
    errorCode: error?.errorCode ?? null,
    errorDesc: error?.errorDesc ?? null,
    merchantId: mode.kind === 'wrongMerchant' ? otherMerchant(source.merchantId) : source.merchantId,
    txnAmount: satangNumber(mode.kind === 'wrongAmount' ? source.satang + 100n : source.satang),
    txnCurrencyCode: 'THB',
    txnNo: forged ? ids.digits('forged-txn-no', 20) : (source.txnNo ?? undefined),
    loyaltyId: source.loyaltyId ?? undefined,
  };
  const text = toWireJson(body);
  return mode.kind === 'malformedJson' ? text.slice(0, Math.floor(text.length / 2)) : text;
}

function otherMerchant(merchantId: string): string {
  return merchantId === 'KB000000000000' ? 'KB999999999999' : 'KB000000000000';
}

export type CallbackAttempt = {
  /** The simulator's clock when the attempt started. */
  at: string;
  status: number | null;
  answer: string | null;
  error: string | null;
  ok: boolean;
  /** Real milliseconds the attempt took. */
  tookMs: number;
};

export type CallbackOutcome = 'pending' | 'held' | 'delivered' | 'failed' | 'dropped' | 'no-callback-url' | 'cancelled';

export type CallbackDelivery = {
  id: number;
  partnerTxnUid: string;
  mode: string;
  url: string | null;
  body: string;
  outcome: CallbackOutcome;
  attempts: CallbackAttempt[];
};

const MAX_ANSWER_TEXT = 2_000;

export class CallbackDispatcher {
  readonly #config: SimConfig;
  readonly #clock: SimClock;
  readonly #deliveries: CallbackDelivery[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #held: Array<(release: boolean) => void> = [];
  readonly #sleeping = new Set<{ timer: NodeJS.Timeout; wake: (ran: boolean) => void }>();
  readonly #closing = new AbortController();

  constructor(config: SimConfig, clock: SimClock) {
    this.#config = config;
    this.#clock = clock;
  }

  /** Starts a delivery; the promise settles with its record when it is over (never rejects). */
  deliver(partnerTxnUid: string, url: string | null, body: string, mode: CallbackMode): Promise<CallbackDelivery> {
    const delivery: CallbackDelivery = {
      id: this.#deliveries.length + 1,
      partnerTxnUid,
      mode: callbackModeText(mode),
      url,
      body,
      outcome: 'pending',
      attempts: [],
    };
    this.#deliveries.push(delivery);
    const run = this.#closing.signal.aborted
      ? Promise.resolve(void (delivery.outcome = 'cancelled'))
      : this.#run(delivery, mode);
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run.then(() => structuredClone(delivery));
  }

  deliveries(): CallbackDelivery[] {
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

  async #run(delivery: CallbackDelivery, mode: CallbackMode): Promise<void> {
    if (delivery.url === null) {
      delivery.outcome = 'no-callback-url';
      return;
    }
    if (mode.kind === 'drop') {
      delivery.outcome = 'dropped';
      return;
    }
    if (mode.kind === 'delay' && !(await this.#sleep(mode.ms))) {
      delivery.outcome = 'cancelled';
      return;
    }
    if (mode.kind === 'reorder') {
      delivery.outcome = 'held';
      if (!(await new Promise<boolean>((release) => this.#held.push(release)))) {
        delivery.outcome = 'cancelled';
        return;
      }
    }
    const copies = mode.kind === 'duplicate' ? mode.copies : 1;
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
    if (mode.kind !== 'reorder') for (const release of this.#held.splice(0)) release(true);
  }

  async #send(delivery: CallbackDelivery, url: string): Promise<'delivered' | 'failed' | 'cancelled'> {
    const { attempts, intervalMs, timeoutMs } = this.#config.callback;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1 && !(await this.#sleep(intervalMs))) return 'cancelled';
      if (this.#closing.signal.aborted) return 'cancelled';
      const record: CallbackAttempt = {
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
        record.ok = response.status >= 200 && response.status < 300 && parseJsonObject(answer)?.statusCode === '00';
        if (!record.ok) record.error = 'the answer is not 2xx with statusCode "00"';
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
