// KBank's HTTP client (docs/connectors/kbank.md): the OAuth token, two-way TLS, timeouts, and the
// rule that decides what a failed call means for the money.
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
import http from 'node:http';
import https from 'node:https';
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import { kbankBaseUrlProblem } from '../../config/kbank.ts';
import { KBANK_PATHS, parseBankJson, parseToken, SANDBOX_ENV_IDS, tokenRequest, type KbankCall } from './wire.ts';

type Json = Record<string, unknown>;
export type BusinessCall = Exclude<KbankCall, 'token'>;

export type RetryPolicy = {
  /** Tries per call in all, for the calls that may be tried again. */
  attempts: number;
  /** The first wait; each next one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
};

export type ClientLogger = {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
};

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

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 };
/** A token is refreshed this long before KBank says it expires. */
const REFRESH_EARLY_MS = 60_000;
/** The largest answer read; KBank's are a few hundred bytes. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** Why a call got no answer; `sent` once the whole request was handed to the connection. */
class TransportFailure extends Error {
  readonly sent: boolean;
  readonly timedOut: boolean;
  constructor(message: string, sent: boolean, timedOut: boolean) {
    super(message);
    this.sent = sent;
    this.timedOut = timedOut;
  }
}

type HttpAnswer = { status: number; text: string; retryAfterMs: number | null };

export class KbankClient {
  readonly #settings: KbankClientSettings;
  readonly #retry: RetryPolicy;
  readonly #agent: http.Agent;
  readonly #secure: boolean;
  #token: { value: string; refreshAt: number } | undefined;
  #pendingToken: Promise<string> | undefined;

  constructor(settings: KbankClientSettings) {
    const problem = kbankBaseUrlProblem(settings.baseUrl, { cert: settings.tls?.cert, key: settings.tls?.key });
    if (problem) throw new Error(`KBank base URL ${settings.baseUrl} ${problem}`);
    this.#settings = { ...settings, baseUrl: settings.baseUrl.replace(/\/+$/, '') };
    this.#retry = { ...DEFAULT_RETRY, ...settings.retry };
    this.#secure = new URL(settings.baseUrl).protocol === 'https:';
    this.#agent = this.#secure
      ? new https.Agent({ keepAlive: true, maxSockets: 32, ...settings.tls })
      : new http.Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** Drops idle connections (tests, shutdown). */
  close(): void {
    this.#agent.destroy();
  }

  /**
   * A business call; resolves with the JSON object of a 2xx answer (KBank answers business
   * refusals with HTTP 200 too). Throws ProcessorUnavailable when there is no usable answer.
   */
  async send(call: BusinessCall, body: string): Promise<Json> {
    const safe = call === 'inquiry';
    let token = await this.token();
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.#post(call, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
      } catch (error) {
        const failure = error as TransportFailure;
        if (safe && !failure.timedOut && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, null);
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
        this.#forget(token);
        token = await this.token();
        refreshed = true;
        attempt--;
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) {
        if (safe && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, answer.retryAfterMs);
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
    const cached = this.#token;
    if (cached && this.#settings.now() < cached.refreshAt) return Promise.resolve(cached.value);
    this.#pendingToken ??= this.#fetchToken().finally(() => {
      this.#pendingToken = undefined;
    });
    return this.#pendingToken;
  }

  #forget(token: string): void {
    if (this.#token?.value === token) this.#token = undefined;
  }

  async #fetchToken(): Promise<string> {
    const { consumerId, consumerSecret } = this.#settings;
    const request = tokenRequest(consumerId, consumerSecret);
    for (let attempt = 1; ; attempt++) {
      const issuedAt = this.#settings.now();
      let answer: HttpAnswer;
      try {
        answer = await this.#post('token', request.headers, request.body);
      } catch (error) {
        if (!(error as TransportFailure).timedOut && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`KBank token: ${(error as Error).message}`, false);
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < this.#retry.attempts) {
        await this.#backOff(attempt, answer.retryAfterMs);
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
      const { accessToken, expiresInSeconds } = parseToken(body);
      const lifeMs = expiresInSeconds * 1000;
      const early = lifeMs > 2 * REFRESH_EARLY_MS ? REFRESH_EARLY_MS : lifeMs / 2;
      this.#token = { value: accessToken, refreshAt: issuedAt + lifeMs - early };
      return accessToken;
    }
  }

  async #backOff(attempt: number, retryAfterMs: number | null): Promise<void> {
    const { baseDelayMs, maxDelayMs } = this.#retry;
    const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    // Jitter, so instances that failed together do not come back together.
    const delay = Math.min(maxDelayMs, Math.max(retryAfterMs ?? 0, exponential * (0.5 + Math.random() / 2)));
    this.#settings.logger?.debug({ attempt, delayMs: Math.round(delay) }, 'KBank call backs off');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** One HTTP POST within the timeout; rejects with a TransportFailure when no whole answer came. */
  #post(call: KbankCall, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
    const { baseUrl, timeoutMs, testMode, envIdFor } = this.#settings;
    const url = new URL(baseUrl + KBANK_PATHS[call]);
    const allHeaders: Record<string, string> = {
      ...headers,
      accept: 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...(testMode && { 'x-test-mode': 'true', 'env-id': envIdFor?.(call) ?? SANDBOX_ENV_IDS[call] }),
    };
    const started = Date.now();
    return new Promise<HttpAnswer>((resolve, reject) => {
      let sent = false;
      let timedOut = false;
      const request = (this.#secure ? https : http).request(url, {
        method: 'POST',
        headers: allHeaders,
        agent: this.#agent,
      });
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const fail = (error: Error & { code?: string }) => {
        clearTimeout(timer);
        const what = timedOut ? error.message : (error.code ?? error.message);
        this.#settings.logger?.debug({ call, sent, error: what, ms: Date.now() - started }, 'KBank call failed');
        reject(new TransportFailure(timedOut ? what : `connection failed (${what})`, sent, timedOut));
      };
      request.on('finish', () => {
        sent = true;
      });
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) request.destroy(new Error('the answer is too large'));
          else chunks.push(chunk);
        });
        let ended = false;
        response.on('error', fail);
        response.on('close', () => {
          if (!ended) fail(new Error(timedOut ? `no answer within ${timeoutMs} ms` : 'the answer was cut off'));
        });
        response.on('end', () => {
          ended = true;
          clearTimeout(timer);
          const status = response.statusCode ?? 0;
          this.#settings.logger?.debug({ call, status, ms: Date.now() - started }, 'KBank call answered');
          resolve({
            status,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfterMs: retryAfter(response.headers['retry-after']),
          });
        });
      });
      request.end(body);
    });
  }
}

/** KBank's gateway-level refusal `{"code":"openapi_error","message":…}`, its message only, short. */
function gatewayMessage(text: string): string {
  const body = parseBankJson(text);
  const message = typeof body?.message === 'string' ? body.message : '';
  return message.replace(/[^\x20-\x7e]/g, ' ').slice(0, 160);
}

function retryAfter(header: string | undefined): number | null {
  return header !== undefined && /^\d{1,4}$/.test(header.trim()) ? Number(header.trim()) * 1000 : null;
}
