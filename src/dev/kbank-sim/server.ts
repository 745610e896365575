// startKbankSim: the local KBank QR Payment simulator on loopback (plain node:http, or node:https
// with an optional client-certificate requirement). It serves the faithful surface
// (api-routes.ts, sandbox-scenarios.ts) and the control API under /__sim (control-routes.ts), and
// hands the same control operations to an in-process caller. Faults queued for an endpoint
// (faults.ts) are applied here, around the faithful answer.
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { answerApi, openapiError, type ApiAnswer, type ApiContext } from './api-routes.ts';
import { parseAmountInput, satangText } from './amounts.ts';
import {
  callbackBody,
  CallbackDispatcher,
  CallbackModeError,
  parseCallbackMode,
  type CallbackDelivery,
  type CallbackMode,
  type CallbackSource,
} from './callbacks.ts';
import { createClock } from '../sim-kit/clock.ts';
import { clockControl, faultControl } from '../sim-kit/common-control.ts';
import {
  credentialsOf,
  describeConfig,
  resolveConfig,
  type KbankSimOptions,
  type SimConfig,
  type SimCredentials,
} from './config.ts';
import { answerControl, SimControlError, type PayResult, type SimControl } from './control-routes.ts';
import { ENDPOINTS, endpointAt } from './endpoints.ts';
import { FaultPlan, faultText, type Fault } from './faults.ts';
import { send, listen } from '../sim-kit/http.ts';
import { SeededIds } from '../sim-kit/ids.ts';
import { RequestLog, type LoggedRequest } from '../sim-kit/request-log.ts';
import { recordView, SimState } from './state.ts';
import { HeldAnswers, logAnswer, readBodyOr413, simRequestListener } from '../sim-kit/sim-server.ts';

export type { KbankSimOptions, PartnerOptions, SimCredentials } from './config.ts';
export type { CallbackDelivery } from './callbacks.ts';
export type { PayOptions, PayResult, SimControl, SimLogView, SimStateView } from './control-routes.ts';
export type { QrRecordView, QrStatus } from './state.ts';
export { SimControlError } from './control-routes.ts';

export type KbankSim = SimControl & {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  /** The first consumer, partner and merchant of the configuration. */
  credentials: SimCredentials;
  /** Resolves when no callback delivery is under way. */
  idle(): Promise<void>;
  /** Stops listening, drops held (timeout) and open connections, cancels pending callbacks. */
  close(): Promise<void>;
};

/** The verified client certificate of a TLS request, if one was presented. */
function clientCertificateOf(req: http.IncomingMessage): { subject: string } | null {
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return null;
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return null;
  const subject = Object.entries(certificate.subject ?? {})
    .map(([name, value]) => `${name}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
  return { subject };
}

/** The answer a fault that refuses the call gives instead of the bank's; null when the bank answers. */
function refusalOf(fault: Fault | undefined): ApiAnswer | null {
  switch (fault?.kind) {
    case 'http500':
      return openapiError(500, 'Internal Server Error', 'fault');
    case 'rateLimit':
      return openapiError(429, 'Rate limit quota violation. Quota limit exceeded.', 'fault');
    case 'openapi_error':
      return openapiError(fault.status, fault.message, 'fault');
    default:
      return null;
  }
}

export async function startKbankSim(options: KbankSimOptions = {}): Promise<KbankSim> {
  const config: SimConfig = resolveConfig(options);
  const clock = createClock(config.start, config.tickingClock);
  const ids = new SeededIds(config.seed);
  const state = new SimState(config, clock, ids);
  const faults = new FaultPlan();
  // What KBank's bodies and answers carry that no log may show.
  const requestLog = new RequestLog(['partnerSecret', 'access_token', 'consumerSecret']);
  const dispatcher = new CallbackDispatcher(config, clock);
  const api: ApiContext = { config, state };
  const held = new HeldAnswers();

  function configuredLatency(): number {
    const { ms, jitterMs } = config.latency;
    if (jitterMs === 0) return ms;
    return Math.max(0, ms + Math.round((ids.fraction('latency') * 2 - 1) * jitterMs));
  }

  function callbackMode(text: string | undefined): CallbackMode {
    try {
      return parseCallbackMode(text);
    } catch (error) {
      if (error instanceof CallbackModeError) throw new SimControlError(400, error.message);
      throw error;
    }
  }

  function dispatch(source: CallbackSource, mode: CallbackMode): Promise<CallbackDelivery> {
    const url = config.callbackUrls.get(source.merchantId) ?? null;
    return dispatcher.deliver(source.partnerTxnUid, url, callbackBody(source, mode, ids), mode);
  }

  const clocks = clockControl(clock);

  const control: SimControl = {
    ...clocks,
    ...faultControl(faults),
    pay(partnerTxnUid, amount, payOptions = {}): PayResult {
      const mode = callbackMode(payOptions.callback);
      let satang: bigint | undefined;
      if (amount !== undefined) {
        const parsed = parseAmountInput(amount);
        if (!parsed.ok) throw new SimControlError(400, `amount ${amount} is not a positive amount with 2 decimals`);
        satang = parsed.satang;
      }
      const record = state.find(partnerTxnUid, payOptions.partnerId);
      if (record === 'ambiguous') return { ok: false, status: 409, reason: 'two partners used it: give partnerId' };
      if (record === undefined) return { ok: false, status: 404, reason: `no QR was created with ${partnerTxnUid}` };
      const outcome = state.pay(record, satang, payOptions.loyaltyId);
      if (!outcome.ok) return outcome;
      return { ok: true, record: recordView(record), callback: dispatch(record, mode) };
    },
    settle(merchantId) {
      if (merchantId !== undefined && !config.merchantPartner.has(merchantId))
        throw new SimControlError(404, `unknown merchant ${merchantId}`);
      const settled = state.settle(merchantId);
      return { count: settled.count, amount: satangText(settled.satang), partnerTxnUids: settled.partnerTxnUids };
    },
    state() {
      return {
        clock: clocks.clock(),
        config: describeConfig(config),
        records: state.records(),
        tokensIssued: state.tokenCount(),
        partnerTxnUidsUsed: state.consumedCount(),
        faults: faults.list(),
      };
    },
    log() {
      return { requests: requestLog.list(), callbacks: dispatcher.deliveries() };
    },
    deliverCallback(partnerTxnUid, modeText, partnerId) {
      const mode = callbackMode(modeText);
      const record = state.find(partnerTxnUid, partnerId);
      if (record === 'ambiguous') throw new SimControlError(409, 'two partners used it: give partnerId');
      if (record !== undefined) return dispatch(record, mode);
      if (mode.kind !== 'forged') throw new SimControlError(404, `no QR was created with ${partnerTxnUid}`);
      // A forged callback needs no QR: it names the default merchant and an unknown id.
      const credentials = credentialsOf(config);
      return dispatch(
        {
          partnerTxnUid,
          partnerId: credentials.partnerId,
          merchantId: credentials.merchantId,
          satang: 10_000n,
          txnNo: null,
          loyaltyId: null,
        },
        mode,
      );
    },
    setCallbackUrl(merchantId, url) {
      if (!config.merchantPartner.has(merchantId)) throw new SimControlError(404, `unknown merchant ${merchantId}`);
      if (url === null) config.callbackUrls.delete(merchantId);
      else if (!/^https?:\/\/\S+$/.test(url)) throw new SimControlError(400, 'url must be an http(s) URL');
      else config.callbackUrls.set(merchantId, url);
    },
  };

  const record = (entry: LoggedRequest, answer: ApiAnswer) => logAnswer(requestLog, entry, answer);

  async function handleFaithful(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const raw = await readBodyOr413(req, res);
    if (raw === undefined) return;
    const path = url.pathname;
    const entry = requestLog.start(clock.now(), {
      method: req.method ?? '',
      path,
      headers: req.headers,
      raw,
    });
    const endpoint = endpointAt(path);
    if (endpoint === null || ENDPOINTS[endpoint].method !== req.method) {
      const answer = openapiError(404, 'Resource not found');
      record(entry, answer);
      await held.wait(configuredLatency());
      send(res, answer.status, answer.body);
      return;
    }
    const fault = faults.take(endpoint);
    entry.fault = fault === undefined ? null : faultText(fault);
    const refusal = refusalOf(fault);
    let answer =
      refusal ??
      answerApi(api, { endpoint, headers: req.headers, rawBody: raw, clientCertificate: clientCertificateOf(req) });
    if (fault?.kind === 'timeout') {
      // Applied, never answered: the client must find out by inquiry what happened.
      entry.handling = `${answer.handling}, not answered`;
      held.hold(res);
      return;
    }
    if (fault?.kind === 'http504') answer = { ...openapiError(504, 'Gateway Timeout'), handling: answer.handling };
    record(entry, answer);
    await held.wait(configuredLatency() + (fault?.kind === 'latency' ? fault.ms : 0));
    send(res, answer.status, answer.body);
  }

  const handler = simRequestListener({
    host: 'kbank-sim',
    requestLog,
    faithful: handleFaithful,
    control: (method, path, body) => answerControl(control, method, path, body),
  });

  const server = config.tls
    ? https.createServer(
        {
          cert: config.tls.cert,
          key: config.tls.key,
          ...(config.tls.ca !== undefined && { ca: config.tls.ca, requestCert: true }),
          rejectUnauthorized: config.requireMtls,
        },
        handler,
      )
    : http.createServer(handler);

  const url = await listen(server, config.host, config.port, config.tls ? 'https' : 'http');

  return {
    ...control,
    url,
    credentials: credentialsOf(config),
    idle: () => dispatcher.idle(),
    async close() {
      held.release();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, dispatcher.close()]);
    },
  };
}
