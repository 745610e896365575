// The control API under /__sim (§5.3): the payer's and the bank's side, which KBank's API does
// not have. Each route calls one operation of SimControl, the same object tests get in process
// from startKbankSim (server.ts). Answers are plain JSON; a refusal is 4xx {"error": …}.
//
//   GET  /__sim                      this list
//   POST /__sim/pay                  {partnerTxnUid, amount?, loyaltyId?, callback?, partnerId?}
//   GET  /__sim/clock                the clock
//   POST /__sim/clock                {now} (ISO 8601 with a zone, or Unix ms) or {advanceMs}
//   POST /__sim/settle               {merchantId?}: end-of-day settlement now
//   POST /__sim/callback/<uid>       {mode?, partnerId?, wait?}: (re-)deliver the callback
//   POST /__sim/callback-url         {merchantId, url}: register a merchant's callback URL (null removes)
//   GET  /__sim/faults               faults still queued
//   POST /__sim/faults               {endpoint, fault, count?, status?} or {faults: [...]}
//   DELETE /__sim/faults             clear them
//   GET  /__sim/state                configuration, clock, QR records, counters
//   GET  /__sim/log                  requests received and callbacks sent (secrets redacted)
import { field, required, SimControlError } from '../sim-kit/control-fields.ts';
import type { CallbackDelivery } from './callbacks.ts';
import type { FaultSpec, QueuedFault } from './faults.ts';
import type { LoggedRequest } from '../sim-kit/request-log.ts';
import type { QrRecordView } from './state.ts';

export { SimControlError };

export type PayOptions = {
  /** The amount the payer's app sends; refused (409) unless it is the QR's. */
  amount?: string | number;
  loyaltyId?: string;
  /** The callback mode of the callback this payment triggers (default "normal"). */
  callback?: string;
  /** Needed only when two partners used the same partnerTxnUid. */
  partnerId?: string;
};

export type PayResult =
  | {
      ok: true;
      record: QrRecordView;
      /** The callback this payment triggered, settled when its delivery is over. */
      callback: Promise<CallbackDelivery>;
    }
  | { ok: false; status: 404 | 409; reason: string };

export type ClockView = { now: string; unixMs: number; ticking: boolean };
export type SettlementView = { count: number; amount: string; partnerTxnUids: string[] };
export type SimStateView = {
  clock: ClockView;
  config: Record<string, unknown>;
  records: QrRecordView[];
  tokensIssued: number;
  partnerTxnUidsUsed: number;
  faults: QueuedFault[];
};
export type SimLogView = { requests: LoggedRequest[]; callbacks: CallbackDelivery[] };

export type SimControl = {
  pay(partnerTxnUid: string, amount?: string | number, options?: Omit<PayOptions, 'amount'>): PayResult;
  clock(): ClockView;
  setClock(at: string | number | Date): ClockView;
  advance(ms: number): ClockView;
  settle(merchantId?: string): SettlementView;
  state(): SimStateView;
  log(): SimLogView;
  faults(spec: FaultSpec | FaultSpec[]): QueuedFault[];
  clearFaults(): void;
  deliverCallback(partnerTxnUid: string, mode?: string, partnerId?: string): Promise<CallbackDelivery>;
  setCallbackUrl(merchantId: string, url: string | null): void;
};

export type ControlAnswer = { status: number; body: unknown };

const ROUTES = [
  'POST /__sim/pay {partnerTxnUid, amount?, loyaltyId?, callback?, partnerId?}',
  'GET  /__sim/clock',
  'POST /__sim/clock {now} | {advanceMs}',
  'POST /__sim/settle {merchantId?}',
  'POST /__sim/callback/<partnerTxnUid> {mode?, partnerId?, wait?}',
  'POST /__sim/callback-url {merchantId, url}',
  'GET|POST|DELETE /__sim/faults {endpoint, fault, count?, status?}',
  'GET  /__sim/state',
  'GET  /__sim/log',
];

/** Routes one /__sim request; `body` is the parsed JSON object ({} when empty). */
export async function answerControl(
  control: SimControl,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer> {
  try {
    return await route(control, method, path, body);
  } catch (error) {
    if (error instanceof SimControlError) return { status: error.status, body: { error: error.message } };
    throw error;
  }
}

async function route(
  control: SimControl,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer> {
  const callback = /^\/__sim\/callback\/([^/]+)$/.exec(path);
  const at = `${method} ${callback ? '/__sim/callback/:uid' : path.replace(/\/$/, '')}`;
  switch (at) {
    case 'GET /__sim':
      return { status: 200, body: { routes: ROUTES } };
    case 'POST /__sim/pay': {
      const uid = required(field<string>(body, 'partnerTxnUid', 'string'), 'partnerTxnUid');
      const amount = body.amount;
      if (amount !== undefined && typeof amount !== 'string' && typeof amount !== 'number')
        throw new SimControlError(400, 'amount must be a string or a number');
      const result = control.pay(uid, amount ?? undefined, {
        loyaltyId: field<string>(body, 'loyaltyId', 'string'),
        callback: field<string>(body, 'callback', 'string'),
        partnerId: field<string>(body, 'partnerId', 'string'),
      });
      if (!result.ok) return { status: result.status, body: { error: result.reason } };
      return { status: 200, body: result.record };
    }
    case 'GET /__sim/clock':
      return { status: 200, body: control.clock() };
    case 'POST /__sim/clock': {
      const now = body.now;
      const advanceMs = field<number>(body, 'advanceMs', 'number');
      if ((now === undefined) === (advanceMs === undefined))
        throw new SimControlError(400, 'give exactly one of now and advanceMs');
      if (advanceMs !== undefined) return { status: 200, body: control.advance(advanceMs) };
      if (typeof now !== 'string' && typeof now !== 'number')
        throw new SimControlError(400, 'now must be ISO 8601 text with a zone or Unix ms');
      return { status: 200, body: control.setClock(now) };
    }
    case 'POST /__sim/settle':
      return { status: 200, body: control.settle(field<string>(body, 'merchantId', 'string')) };
    case 'POST /__sim/callback/:uid': {
      const delivery = control.deliverCallback(
        decodeURIComponent(callback![1]!),
        field<string>(body, 'mode', 'string'),
        field<string>(body, 'partnerId', 'string'),
      );
      if (field<boolean>(body, 'wait', 'boolean')) return { status: 200, body: await delivery };
      return { status: 202, body: { accepted: true, see: 'GET /__sim/log' } };
    }
    case 'POST /__sim/callback-url': {
      const merchantId = required(field<string>(body, 'merchantId', 'string'), 'merchantId');
      control.setCallbackUrl(merchantId, field<string>(body, 'url', 'string') ?? null);
      return { status: 200, body: { merchantId, url: field<string>(body, 'url', 'string') ?? null } };
    }
    case 'GET /__sim/faults':
      return { status: 200, body: { faults: control.state().faults } };
    case 'POST /__sim/faults': {
      const specs = Array.isArray(body.faults) ? body.faults : [body];
      return { status: 200, body: { faults: control.faults(specs.map(faultSpec)) } };
    }
    case 'DELETE /__sim/faults':
      control.clearFaults();
      return { status: 200, body: { faults: [] } };
    case 'GET /__sim/state':
      return { status: 200, body: control.state() };
    case 'GET /__sim/log':
      return { status: 200, body: control.log() };
    default:
      return { status: 404, body: { error: `no control route ${method} ${path}`, routes: ROUTES } };
  }
}

function faultSpec(value: unknown): FaultSpec {
  if (value === null || typeof value !== 'object') throw new SimControlError(400, 'a fault is an object');
  const spec = value as Record<string, unknown>;
  const count = field<number>(spec, 'count', 'number');
  const status = field<number>(spec, 'status', 'number');
  return {
    endpoint: required(field<string>(spec, 'endpoint', 'string'), 'endpoint'),
    fault: required(field<string>(spec, 'fault', 'string'), 'fault'),
    ...(count !== undefined && { count }),
    ...(status !== undefined && { status }),
  };
}
