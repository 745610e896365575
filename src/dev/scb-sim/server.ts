// startScbSim: the local SCB QR30 simulator on loopback (docs/connectors/scb-sim.md). It serves
// the faithful surface under /partners/sandbox (api-routes.ts), the control API and the payer
// page under /__sim (control-routes.ts, payer-page.ts), sends payment confirmations
// (confirmations.ts), and hands the same control operations to an in-process caller. Faults
// queued for an endpoint (faults.ts) are applied here, around the faithful answer.
import http from 'node:http';
import { createClock } from '../sim-kit/clock.ts';
import { clockControl, faultControl } from '../sim-kit/common-control.ts';
import { SimControlError } from '../sim-kit/control-fields.ts';
import { listen, send } from '../sim-kit/http.ts';
import { SeededIds } from '../sim-kit/ids.ts';
import { RequestLog, type LoggedRequest } from '../sim-kit/request-log.ts';
import { HeldAnswers, logAnswer, readBodyOr413, simRequestListener } from '../sim-kit/sim-server.ts';
import { answerApi, type ApiContext } from './api-routes.ts';
import {
  ConfirmationModeError,
  ConfirmationSender,
  parseConfirmationMode,
  type ConfirmationDelivery,
  type ConfirmationMode,
} from './confirmations.ts';
import {
  BASE_PATH,
  credentialsOf,
  describeConfig,
  httpUrl,
  resolveConfig,
  SimConfigError,
  type ScbSimOptions,
  type SimConfig,
  type SimCredentials,
} from './config.ts';
import { answerControl, type PayResult, type SimControl } from './control-routes.ts';
import { ENDPOINTS, endpointAt } from './endpoints.ts';
import { FaultPlan, faultText, type Fault } from './faults.ts';
import { DEFAULT_PAYER, type Payer } from './payer.ts';
import { payerPage } from './payer-page.ts';
import { paymentView, SimState, transactionRecord, type Payment } from './state.ts';
import { refuse, scbAnswer, type ApiAnswer } from './status.ts';

export type { ScbSimOptions, SimCredentials } from './config.ts';
export type { ConfirmationDelivery } from './confirmations.ts';
export type { ForgeOptions, PayOptions, PayResult, SimControl, SimLogView, SimStateView } from './control-routes.ts';
export type { PaymentView, QrRecordView } from './state.ts';
export { SimControlError } from './control-routes.ts';

export type ScbSim = SimControl & {
  /** The simulator's origin without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  /** SCB_BASE_URL: the origin and /partners/sandbox. */
  baseUrl: string;
  credentials: SimCredentials;
  /** Resolves when no confirmation is under way. */
  idle(): Promise<void>;
  /** Stops listening, drops held (hang, timeout) and open connections, cancels pending confirmations. */
  close(): Promise<void>;
};

/** What SCB's bodies and answers carry that no log may show. */
const SECRET_MEMBERS = ['applicationSecret', 'accessToken'];

/** The answer a fault gives instead of the bank's, before the call is applied; null when it is applied. */
function refusalOf(fault: Fault | undefined): ApiAnswer | null {
  if (fault?.kind === 'down') return { ...refuse('unavailable', 'fault'), handling: 'fault' };
  if (fault?.kind === 'http500') return { ...refuse('serverError', 'fault'), handling: 'fault' };
  return null;
}

const AMOUNT = /^\d{1,11}(?:\.\d{1,2})?$/;

function satangOf(text: string, name = 'amount'): bigint {
  if (!AMOUNT.test(text.trim())) throw new SimControlError(400, `${name} must be a decimal THB amount, e.g. 100.00`);
  const [whole, fraction = ''] = text.trim().split('.');
  const satang = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  if (satang === 0n) throw new SimControlError(400, `${name} must be positive`);
  return satang;
}

export async function startScbSim(options: ScbSimOptions = {}): Promise<ScbSim> {
  const config: SimConfig = resolveConfig(options);
  const clock = createClock(config.start, config.tickingClock);
  const ids = new SeededIds(config.seed);
  const state = new SimState(config, clock, ids);
  const faults = new FaultPlan();
  const requestLog = new RequestLog(SECRET_MEMBERS);
  const sender = new ConfirmationSender(config, clock);
  const api: ApiContext = { config, state };
  const held = new HeldAnswers();

  function modeOf(text: string | undefined): ConfirmationMode | undefined {
    if (text === undefined) return undefined;
    try {
      return parseConfirmationMode(text);
    } catch (error) {
      if (error instanceof ConfirmationModeError) throw new SimControlError(400, error.message);
      throw error;
    }
  }

  /** A confirmation: the mode asked for, else the next queued "confirmation" fault, else normal. */
  function confirm(payment: Payment, mode: ConfirmationMode | undefined): Promise<ConfirmationDelivery> {
    const fault = mode === undefined ? faults.take('confirmation') : undefined;
    const chosen = mode ?? (fault?.kind === 'confirmation' ? fault.mode : { kind: 'normal' as const });
    return sender.send(payment, chosen);
  }

  function payerOf(o: { payerAccountNumber?: string; payerName?: string; sendingBankCode?: string }): Payer {
    const payer = {
      accountNumber: o.payerAccountNumber ?? DEFAULT_PAYER.accountNumber,
      name: o.payerName ?? DEFAULT_PAYER.name,
      bankCode: o.sendingBankCode ?? DEFAULT_PAYER.bankCode,
      masked: false,
    };
    if (!/^\d{10,15}$/.test(payer.accountNumber))
      throw new SimControlError(400, 'payerAccountNumber must be 10–15 digits');
    if (!/^\d{3}$/.test(payer.bankCode)) throw new SimControlError(400, 'sendingBankCode must be 3 digits');
    if (payer.name.trim() === '') throw new SimControlError(400, 'payerName must not be empty');
    return payer;
  }

  const clocks = clockControl(clock);

  const control: SimControl = {
    ...clocks,
    ...faultControl(faults),
    pay(payOptions): PayResult {
      const mode = modeOf(payOptions.confirmation);
      if ((payOptions.ref1 === undefined) === (payOptions.qrRawData === undefined))
        throw new SimControlError(400, 'give exactly one of ref1 and qrRawData');
      const satang = payOptions.amount === undefined ? undefined : satangOf(payOptions.amount);
      const payer = { ...payerOf(payOptions), masked: payOptions.maskPayer ?? false };
      const qr = state.findQr(payOptions);
      if (qr === undefined)
        return {
          ok: false,
          status: 404,
          reason:
            payOptions.ref1 === undefined
              ? 'no QR was created with this qrRawData'
              : `no QR was created with ref1 ${payOptions.ref1}`,
        };
      const outcome = state.pay(qr, { ...(satang !== undefined && { satang }), payer });
      if (!outcome.ok) return outcome;
      return {
        ok: true,
        payment: paymentView(outcome.payment),
        record: transactionRecord(config, outcome.payment),
        confirmation: confirm(outcome.payment, mode),
      };
    },
    expireTokens: () => ({ expired: state.expireTokens() }),
    confirm(transactionId, modeText) {
      const payment = state.anyPayment(transactionId);
      if (payment === undefined) throw new SimControlError(404, `no payment ${transactionId}`);
      return confirm(payment, modeOf(modeText) ?? { kind: 'normal' });
    },
    forgeConfirmation(forge) {
      const mode = modeOf(forge.confirmation);
      if (!/^[A-Z0-9]{1,20}$/.test(forge.ref1)) throw new SimControlError(400, 'ref1 must be 1–20 of A-Z0-9');
      const payment = state.forge({
        ref1: forge.ref1,
        ref2: forge.ref2 ?? null,
        ref3: forge.ref3 ?? null,
        satang: forge.amount === undefined ? 10_000n : satangOf(forge.amount),
        payer: { ...DEFAULT_PAYER, masked: false },
      });
      return confirm(payment, mode ?? { kind: 'normal' });
    },
    setConfirmUrl(url) {
      try {
        config.confirmUrl = url === null ? null : httpUrl('url', url);
      } catch (error) {
        if (error instanceof SimConfigError) throw new SimControlError(400, error.message);
        throw error;
      }
    },
    state() {
      return {
        clock: clocks.clock(),
        config: describeConfig(config),
        qrs: state.qrs(),
        payments: state.payments(),
        tokensIssued: state.tokenCount(),
        faults: faults.list(),
      };
    },
    log() {
      return { requests: requestLog.list(), confirmations: sender.deliveries() };
    },
  };

  const record = (entry: LoggedRequest, answer: ApiAnswer) => logAnswer(requestLog, entry, answer);

  async function handleFaithful(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const raw = await readBodyOr413(req, res);
    if (raw === undefined) return;
    const path = url.pathname;
    const entry = requestLog.start(clock.now(), { method: req.method ?? '', path, headers: req.headers, raw });
    const found = path.startsWith(`${BASE_PATH}/`) ? endpointAt(path.slice(BASE_PATH.length)) : null;
    if (found === null || ENDPOINTS[found.endpoint].method !== req.method) {
      const answer = scbAnswer('notFound', null, `no resource ${req.method} ${path}`, 'refused');
      record(entry, answer);
      send(res, answer.status, answer.body);
      return;
    }
    const fault = faults.take(found.endpoint);
    entry.fault = fault === undefined ? null : faultText(fault);
    if (fault?.kind === 'hang') {
      // Not applied, never answered: the client's own timeout must end the call.
      entry.handling = 'fault, not answered';
      held.hold(res);
      return;
    }
    let answer =
      refusalOf(fault) ??
      answerApi(api, {
        endpoint: found.endpoint,
        method: req.method ?? '',
        headers: req.headers,
        query: url.searchParams,
        rawBody: raw,
        ...(found.transactionId !== undefined && { transactionId: found.transactionId }),
      });
    if (fault?.kind === 'timeout') {
      // Applied, never answered: the client must find out by inquiry what happened.
      entry.handling = `${answer.handling}, not answered`;
      held.hold(res);
      return;
    }
    if (fault?.kind === 'answerLost') {
      // Applied, then the connection drops: the client sees a reset, not an answer.
      entry.handling = `${answer.handling}, connection dropped`;
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'http504') answer = { ...refuse('timeout', 'fault'), handling: answer.handling };
    record(entry, answer);
    await held.wait(fault?.kind === 'latency' ? fault.ms : 0);
    send(res, answer.status, answer.body);
  }

  const server = http.createServer(
    simRequestListener({
      host: 'scb-sim',
      requestLog,
      faithful: handleFaithful,
      control: (method, path, body) => answerControl(control, method, path, body),
      page: (method, path) =>
        method === 'GET' && path === '/__sim/payer'
          ? { body: payerPage(state.qrs()), contentType: 'text/html; charset=utf-8' }
          : undefined,
    }),
  );
  const url = await listen(server, config.host, config.port);

  return {
    ...control,
    url,
    baseUrl: `${url}${BASE_PATH}`,
    credentials: credentialsOf(config),
    idle: () => sender.idle(),
    async close() {
      held.release();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, sender.close()]);
    },
  };
}
