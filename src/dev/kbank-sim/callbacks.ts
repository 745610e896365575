// Payment callbacks (§4.8): the bank POSTs JSON to the URL the merchant registered with KBank.
// A delivery succeeds when the receiver answers 2xx with a JSON body whose statusCode is "00";
// it is tried `callback.attempts` times (default 1: KBank's retry policy is not published, so a
// connector must survive a lost callback), `intervalMs` apart, each within `timeoutMs`. Sending,
// retrying and the timing modes are the shared dispatcher's (sim-kit/dispatcher.ts: real timers,
// a promise per delivery); this file is KBank's body and acceptance.
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
import type { SimClock } from '../sim-kit/clock.ts';
import {
  Dispatcher,
  timingOf,
  type Acceptance,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryOutcome,
} from '../sim-kit/dispatcher.ts';
import type { SimConfig } from './config.ts';
import { bankError } from './errors.ts';
import type { SeededIds } from '../sim-kit/ids.ts';
import { parseJsonObject, toWireJson } from '../sim-kit/wire-json.ts';

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

export type CallbackAttempt = DeliveryAttempt;
export type CallbackOutcome = DeliveryOutcome;
export type CallbackDelivery = Delivery<{ partnerTxnUid: string }>;

/** KBank's acceptance: a 2xx answer whose JSON body has statusCode "00". */
const KBANK_ACCEPTS: Acceptance = {
  accepts: (status, text) => status >= 200 && status < 300 && parseJsonObject(text)?.statusCode === '00',
  refusal: 'the answer is not 2xx with statusCode "00"',
};

/** Sends KBank's callbacks: the shared dispatcher (sim-kit/dispatcher.ts) with KBank's acceptance. */
export class CallbackDispatcher {
  readonly #dispatcher: Dispatcher<{ partnerTxnUid: string }>;

  constructor(config: SimConfig, clock: SimClock) {
    this.#dispatcher = new Dispatcher(() => config.callback, clock, KBANK_ACCEPTS);
  }

  /** Starts a delivery; the promise settles with its record when it is over (never rejects). */
  deliver(partnerTxnUid: string, url: string | null, body: string, mode: CallbackMode): Promise<CallbackDelivery> {
    return this.#dispatcher.deliver({ partnerTxnUid }, url, body, timingOf(mode), callbackModeText(mode));
  }

  deliveries(): CallbackDelivery[] {
    return this.#dispatcher.deliveries();
  }

  idle(): Promise<void> {
    return this.#dispatcher.idle();
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
