// KBank's HTTP client (docs/connectors/kbank.md): the OAuth token, two-way TLS, timeouts, and the
// rule that decides what a failed call means for the money. The transport, the back-off and the
// token cache are the core both bank clients share (connectors/http-client-core.ts).
//
// - The token (client credentials: Basic consumerId:consumerSecret, a form body) is cached per
//   process, fetched by one call however many wait for it, refreshed 60 s before `expires_in`
//   runs out, and once more when a business call is answered 401 (KBank did not process that
//   call, so sending it again with the same partnerTxnUid is safe).
// - Calls that move nothing (the token, an inquiry) back off and try again on 429, 5xx and a
//   connection that failed before an answer. Calls that move money (create, cancel, void) are
//   never sent twice: KBank refuses a repeated partnerTxnUid (EMDR) without telling what the first
//   one did. They throw ProcessorUnavailable instead, `outcomeUnknown` true when the request may
//   have reached KBank (a timeout after sending, a 5xx, an unreadable answer) and false when it
//   certainly did not (refused connection, 429, a token refused twice); the caller settles an
//   unknown outcome by inquiry.
// - The timeout covers the whole call: connecting, sending and the whole answer.
// - Nothing secret is logged: no body (it carries partnerSecret), no header, no token.
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import { kbankBaseUrlProblem } from '../../config/kbank.ts';
import {
  CachedToken,
  HttpClientCore,
  type ClientLogger,
  type HttpAnswer,
  type IssuedToken,
  type RetryPolicy,
  type TransportFailure,
} from '../http-client-core.ts';
import { KBANK_PATHS, parseBankJson, parseToken, SANDBOX_ENV_IDS, tokenRequest, type KbankCall } from './wire.ts';

export type { ClientLogger, RetryPolicy };
type Json = Record<string, unknown>;
export type BusinessCall = Exclude<KbankCall, 'token'>;

export type KbankClientSettings = {
  baseUrl: string;
  consumerId: string;
  consumerSecret: string;
  /** PEM client certificate and key (two-way TLS); `ca` replaces the system's CAs (a test's own CA). */
  tls?: { cert?: string; key?: string; ca?: string };
  /** Sends `x-test-mode: true` and an `env-id` on every call (KBank's sandbox). */
  testMode: boolean;
  /** The sandbox scenario of a call in test mode; the success of each by default. */
  envIdFor?: (call: KbankCall) => string;
  timeoutMs: number;
  now: () => number;
  retry?: Partial<RetryPolicy>;
  logger?: ClientLogger;
};

export class KbankClient {
  readonly #settings: KbankClientSettings;
  readonly #http: HttpClientCore;
  readonly #token: CachedToken;

  constructor(settings: KbankClientSettings) {
    const problem = kbankBaseUrlProblem(settings.baseUrl, { cert: settings.tls?.cert, key: settings.tls?.key });
    if (problem) throw new Error(`KBank base URL ${settings.baseUrl} ${problem}`);
    this.#settings = settings;
    this.#http = new HttpClientCore({ bank: 'KBank', ...settings });
    this.#token = new CachedToken(settings.now, () => this.#fetchToken());
  }

  /** Drops idle connections (tests, shutdown). */
  close(): void {
    this.#http.close();
  }

  /**
   * A business call; resolves with the JSON object of a 2xx answer (KBank answers business
   * refusals with HTTP 200 too). Throws ProcessorUnavailable when there is no usable answer.
   */
  async send(call: BusinessCall, body: string): Promise<Json> {
    const safe = call === 'inquiry';
    const { attempts } = this.#http.retry;
    let token = await this.token();
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.#post(call, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
      } catch (error) {
        const failure = error as TransportFailure;
        if (safe && !failure.timedOut && attempt < attempts) {
          await this.#http.backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(
          `KBank ${call}: ${failure.message}`,
          !safe && failure.sent, // sent: it may have arrived and been applied
        );
      }
      if (answer.status === 401) {
        // Not processed: the same request may go again, with a new token, once.
        if (refreshed) throw new ProcessorUnavailable(`KBank ${call}: our access token was refused twice`, false);
        this.#token.forget(token);
        token = await this.token();
        refreshed = true;
        attempt--;
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) {
        if (safe && attempt < attempts) {
          await this.#http.backOff(attempt, answer.retryAfterMs);
          continue;
        }
        const limited = answer.status === 429;
        const why = `HTTP ${answer.status}${limited ? ' (rate limited)' : ''} ${gatewayMessage(answer.text)}`;
        throw new ProcessorUnavailable(`KBank ${call}: ${why.trim()}`, !safe && !limited);
      }
      if (answer.status < 200 || answer.status > 299)
        throw new ProcessorUnavailable(`KBank ${call}: HTTP ${answer.status} ${gatewayMessage(answer.text)}`, false);
      const json = parseBankJson(answer.text);
      if (json === null) throw new ProcessorUnavailable(`KBank ${call}: the answer is not a JSON object`, !safe);
      return json;
    }
  }

  /** The cached access token, or a new one (one token call however many wait). */
  token(): Promise<string> {
    return this.#token.get();
  }

  async #fetchToken(): Promise<IssuedToken> {
    const { consumerId, consumerSecret } = this.#settings;
    const request = tokenRequest(consumerId, consumerSecret);
    for (let attempt = 1; ; attempt++) {
      const issuedAt = this.#settings.now();
      let answer: HttpAnswer;
      try {
        answer = await this.#post('token', request.headers, request.body);
      } catch (error) {
        if (!(error as TransportFailure).timedOut && attempt < this.#http.retry.attempts) {
          await this.#http.backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`KBank token: ${(error as Error).message}`, false);
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < this.#http.retry.attempts) {
        await this.#http.backOff(attempt, answer.retryAfterMs);
        continue;
      }
      if (answer.status !== 200) {
        const refused = answer.status === 401 || answer.status === 403;
        throw new ProcessorUnavailable(
          `KBank token: HTTP ${answer.status} ${gatewayMessage(answer.text)}` +
            (refused ? ' (check KBANK_CONSUMER_ID and KBANK_CONSUMER_SECRET)' : ''),
          false,
        );
      }
      const body = parseBankJson(answer.text);
      if (body === null) throw new ProcessorUnavailable('KBank token: the answer is not a JSON object', false);
      return { ...parseToken(body), issuedAt };
    }
  }

  /** One POST to KBank, with the sandbox's headers in test mode. */
  #post(call: KbankCall, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
    const { testMode, envIdFor } = this.#settings;
    return this.#http.request(call, {
      method: 'POST',
      path: KBANK_PATHS[call],
      headers: {
        ...headers,
        accept: 'application/json',
        ...(testMode && { 'x-test-mode': 'true', 'env-id': envIdFor?.(call) ?? SANDBOX_ENV_IDS[call] }),
      },
      body,
    });
  }
}

/** KBank's gateway-level refusal `{"code":"openapi_error","message":…}`, its message only, short. */
function gatewayMessage(text: string): string {
  const body = parseBankJson(text);
  const message = typeof body?.message === 'string' ? body.message : '';
  return message.replace(/[^\x20-\x7e]/g, ' ').slice(0, 160);
}
