// The control API under /__sim (docs/connectors/scb-sim.md "The control API"): the payer's and
// the bank's side, which SCB's API does not have. Each route calls one operation of SimControl,
// the same object tests get in process from startScbSim (server.ts). Answers are plain JSON; a
// refusal is 4xx {"error": …}.
// The clock, faults, state and log routes are the ones every simulator shares
// (sim-kit/control-routes.ts); this file adds SCB's own.
import type { ClockControl, ClockView, FaultControl } from '../sim-kit/common-control.ts';
import { field, required, SimControlError } from '../sim-kit/control-fields.ts';
import { answerControl as answerSimControl, readFaultSpec, type ControlAnswer } from '../sim-kit/control-routes.ts';
import type { QueuedFault } from '../sim-kit/fault-queue.ts';
import type { LoggedRequest } from '../sim-kit/request-log.ts';
import type { ConfirmationDelivery } from './confirmations.ts';
import type { FaultEndpoint } from './faults.ts';
import type { PaymentView, QrRecordView } from './state.ts';

export { SimControlError };
export type { ClockView, ControlAnswer };

export type PayOptions = {
  /** The QR the payer scans: its ref1 (the latest QR created with it) or its qrRawData. */
  ref1?: string;
  qrRawData?: string;
  /** The amount the payer's app sends: refused unless it is the QR's; required for a QR without one. */
  amount?: string;
  payerAccountNumber?: string;
  payerName?: string;
  /** The payer's bank, 3 digits (default 014, SCB). */
  sendingBankCode?: string;
  /** Report the payer's account masked ("xxx-x-x3000-1") in the confirmation, inquiry and slip. */
  maskPayer?: boolean;
  /** The confirmation's mode (default: the next queued "confirmation" fault, else normal). */
  confirmation?: string;
};

export type PayResult =
  | { ok: true; payment: PaymentView; record: Record<string, string>; confirmation: Promise<ConfirmationDelivery> }
  | { ok: false; status: 400 | 404 | 409; reason: string };

export type ForgeOptions = { ref1: string; ref2?: string; ref3?: string; amount?: string; confirmation?: string };
export type SimStateView = {
  clock: ClockView;
  config: Record<string, unknown>;
  qrs: QrRecordView[];
  payments: PaymentView[];
  tokensIssued: number;
  faults: Array<QueuedFault<FaultEndpoint>>;
};
export type SimLogView = { requests: LoggedRequest[]; confirmations: ConfirmationDelivery[] };
export type FaultSpec = { endpoint: string; fault: string; count?: number };

export type SimControl = ClockControl &
  FaultControl<FaultSpec, QueuedFault<FaultEndpoint>> & {
    pay(options: PayOptions): PayResult;
    /** Every access token issued so far expires now; answers how many were still valid. */
    expireTokens(): { expired: number };
    /** Sends a payment's confirmation again (a forged one too), with a mode. */
    confirm(transactionId: string, mode?: string): Promise<ConfirmationDelivery>;
    /** Sends a confirmation for a reference nobody paid. */
    forgeConfirmation(options: ForgeOptions): Promise<ConfirmationDelivery>;
    setConfirmUrl(url: string | null): void;
    state(): SimStateView;
    log(): SimLogView;
  };

const ROUTES = [
  'GET  /__sim/payer  (a page to pay a QR as the customer)',
  'POST /__sim/pay {ref1 | qrRawData, amount?, payerAccountNumber?, payerName?, sendingBankCode?, maskPayer?,' +
    ' confirmation?, wait?}',
  'GET  /__sim/clock',
  'POST /__sim/clock {now} | {advanceMs}',
  'POST /__sim/tokens/expire',
  'POST /__sim/confirm {transactionId, mode?, wait?}',
  'POST /__sim/confirm {forged: true, ref1, ref2?, ref3?, amount?, mode?, wait?}',
  'POST /__sim/confirm-url {url}  (null removes it)',
  'GET|POST|DELETE /__sim/faults {endpoint, fault, count?} | {faults: [...]}',
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
      own: (at, _path, ownBody) => ownRoute(control, at, ownBody),
      faultSpec: (value) => readFaultSpec(value, ['count']),
    },
    method,
    path,
    body,
  );
}

/** SCB's own routes; undefined for the ones every simulator has. */
async function ownRoute(
  control: SimControl,
  at: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer | undefined> {
  const str = (name: string) => field<string>(body, name, 'string');
  switch (at) {
    case 'POST /__sim/pay': {
      const result = control.pay({
        ref1: str('ref1'),
        qrRawData: str('qrRawData'),
        amount: amountField(body),
        payerAccountNumber: str('payerAccountNumber'),
        payerName: str('payerName'),
        sendingBankCode: str('sendingBankCode'),
        maskPayer: field<boolean>(body, 'maskPayer', 'boolean'),
        confirmation: str('confirmation'),
      });
      if (!result.ok) return { status: result.status, body: { error: result.reason } };
      const delivery = field<boolean>(body, 'wait', 'boolean') ? await result.confirmation : undefined;
      return { status: 200, body: { payment: result.payment, record: result.record, confirmation: delivery } };
    }
    case 'POST /__sim/tokens/expire':
      return { status: 200, body: control.expireTokens() };
    case 'POST /__sim/confirm': {
      const mode = str('mode');
      const delivery = field<boolean>(body, 'forged', 'boolean')
        ? control.forgeConfirmation({
            ref1: required(str('ref1'), 'ref1'),
            ...optional('ref2', str('ref2')),
            ...optional('ref3', str('ref3')),
            ...optional('amount', amountField(body)),
            ...optional('confirmation', mode),
          })
        : control.confirm(required(str('transactionId'), 'transactionId'), mode);
      if (field<boolean>(body, 'wait', 'boolean')) return { status: 200, body: await delivery };
      return { status: 202, body: { accepted: true, see: 'GET /__sim/log' } };
    }
    case 'POST /__sim/confirm-url': {
      const url = str('url') ?? null;
      control.setConfirmUrl(url);
      return { status: 200, body: { url } };
    }
    default:
      return undefined;
  }
}

const optional = <K extends string, V>(name: K, value: V | undefined) =>
  (value === undefined ? {} : { [name]: value }) as Partial<Record<K, V>>;

/** An amount as a decimal string or a JSON number (read as its text). */
function amountField(body: Record<string, unknown>): string | undefined {
  const amount = body.amount;
  if (amount === undefined || amount === null) return undefined;
  if (typeof amount === 'number') return String(amount);
  if (typeof amount !== 'string') throw new SimControlError(400, 'amount must be a string or a number');
  return amount;
}
