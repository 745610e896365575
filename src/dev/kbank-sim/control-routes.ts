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
// The clock, faults, state and log routes are the ones every simulator shares
// (sim-kit/control-routes.ts); this file adds KBank's own.
import type { ClockControl, ClockView, FaultControl } from '../sim-kit/common-control.ts';
import { field, required, SimControlError } from '../sim-kit/control-fields.ts';
import { answerControl as answerSimControl, readFaultSpec, type ControlAnswer } from '../sim-kit/control-routes.ts';
import type { CallbackDelivery } from './callbacks.ts';
import type { FaultSpec, QueuedFault } from './faults.ts';
import type { LoggedRequest } from '../sim-kit/request-log.ts';
import type { QrRecordView } from './state.ts';

export { SimControlError };
export type { ClockView, ControlAnswer };

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

export type SimControl = ClockControl &
  FaultControl<FaultSpec, QueuedFault> & {
    pay(partnerTxnUid: string, amount?: string | number, options?: Omit<PayOptions, 'amount'>): PayResult;
    settle(merchantId?: string): SettlementView;
    state(): SimStateView;
    log(): SimLogView;
    deliverCallback(partnerTxnUid: string, mode?: string, partnerId?: string): Promise<CallbackDelivery>;
    setCallbackUrl(merchantId: string, url: string | null): void;
  };

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
export function answerControl(
  control: SimControl,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer> {
  return answerSimControl(
    control,
    {
      routes: ROUTES,
      own: (at, ownPath, ownBody) => ownRoute(control, at, ownPath, ownBody),
      faultSpec: (value) => readFaultSpec(value, ['count', 'status']),
    },
    method,
    path,
    body,
  );
}

/** KBank's own routes; undefined for the ones every simulator has. */
async function ownRoute(
  control: SimControl,
  at: string,
  path: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer | undefined> {
  const callback = /^\/__sim\/callback\/([^/]+)$/.exec(path);
  if (callback && at.startsWith('POST ')) {
    const delivery = control.deliverCallback(
      decodeURIComponent(callback[1]!),
      field<string>(body, 'mode', 'string'),
      field<string>(body, 'partnerId', 'string'),
    );
    if (field<boolean>(body, 'wait', 'boolean')) return { status: 200, body: await delivery };
    return { status: 202, body: { accepted: true, see: 'GET /__sim/log' } };
  }
  switch (at) {
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
    case 'POST /__sim/settle':
      return { status: 200, body: control.settle(field<string>(body, 'merchantId', 'string')) };
    case 'POST /__sim/callback-url': {
      const merchantId = required(field<string>(body, 'merchantId', 'string'), 'merchantId');
      control.setCallbackUrl(merchantId, field<string>(body, 'url', 'string') ?? null);
      return { status: 200, body: { merchantId, url: field<string>(body, 'url', 'string') ?? null } };
    }
    default:
      return undefined;
  }
}
