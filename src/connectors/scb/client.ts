// SCB's HTTP client (docs/connectors/scb.md): the OAuth token, timeouts, and the rule that decides
// what a failed call means for the money. It mirrors KBank's (connectors/kbank/client.ts):
//
// - The token (`applicationKey` / `applicationSecret` in a JSON body) is cached per process,
//   fetched by one call however many wait for it, refreshed 60 s before `expiresIn` runs out, and
//   once more when a call is answered 9300 (token invalid or expired): SCB did not process that
//   call, so sending it again is safe.
// - The inquiry moves nothing: it backs off and tries again on 429, 5xx and a connection that failed
//   before an answer. The create is never sent twice: SCB documents no idempotency, so a second
//   create would be a second QR. It throws ProcessorUnavailable instead, `outcomeUnknown` true when
//   the request may have reached SCB (a timeout after sending, a 5xx, an unreadable answer) and
//   false when it certainly did not (refused connection, 429, a token refused); the caller settles
//   an unknown outcome by inquiry.
// - SCB answers its business refusals with HTTP 400/404 and its envelope: those are handed back to
//   the connector, which knows what each code means for its call.
// - Every call carries a new requestUId (32 letters and digits). Nothing secret is logged: no body
//   (the token call's carries the API secret), no header, no token.
import http from 'node:http';
import https from 'node:https';
import { scbBaseUrlProblem } from '../../config/scb.ts';
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import {
  describeAnswer,
  newRequestUId,
  parseEnvelope,
  parseToken,
  SCB_CODES,
  SCB_PATHS,
  scbHeaders,
  tokenBody,
  type Envelope,
  type ScbCall,
} from './wire.ts';

export type BusinessCall = Exclude<ScbCall, 'token'>;

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

export type ScbClientSettings = {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
  now: () => number;
  retry?: Partial<RetryPolicy>;
  logger?: ClientLogger;
};

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 };
/** A token is refreshed this long before SCB says it expires. */
const REFRESH_EARLY_MS = 60_000;
/** The largest answer read: an inquiry lists a day's payments of one ref1, a few KiB. */
const MAX_ANSWER_BYTES = 256 * 1024;
const CHECK_CREDENTIALS = ' (check SCB_API_KEY and SCB_API_SECRET)';

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
/** A request: a JSON body (POST) or a query string (GET). */
type Request = { body: string } | { query: string };

export class ScbClient {
  readonly #settings: ScbClientSettings;
  readonly #retry: RetryPolicy;
  readonly #agent: http.Agent;
  readonly #secure: boolean;
  #token: { value: string; refreshAt: number } | undefined;
  #pendingToken: Promise<string> | undefined;

  constructor(settings: ScbClientSettings) {
    const problem = scbBaseUrlProblem(settings.baseUrl);
    if (problem) throw new Error(`SCB base URL ${settings.baseUrl} ${problem}`);
    this.#settings = { ...settings, baseUrl: settings.baseUrl.replace(/\/+$/, '') };
    this.#retry = { ...DEFAULT_RETRY, ...settings.retry };
    this.#secure = new URL(settings.baseUrl).protocol === 'https:';
    this.#agent = this.#secure
      ? new https.Agent({ keepAlive: true, maxSockets: 32 })
      : new http.Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** Drops idle connections (tests, shutdown). */
  close(): void {
    this.#agent.destroy();
  }

  /**
   * A business call; resolves with SCB's envelope when SCB answered with one (success, or a
   * business refusal on 400/404 for the connector to read). Throws ProcessorUnavailable when there
   * is no usable answer.
   */
  async send(call: BusinessCall, request: Request): Promise<Envelope> {
    const safe = call === 'inquiry';
    let token = await this.token();
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.#call(call, token, request);
      } catch (error) {
        const failure = error as TransportFailure;
        if (safe && !failure.timedOut && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`SCB ${call}: ${failure.message}`, !safe && failure.sent);
      }
      const envelope = parseEnvelope(answer.text);
      if (answer.status === 401 || answer.status === 403) {
        if (envelope?.code === SCB_CODES.tokenExpired) {
          // Not processed: the same request may go again, with a new token, once.
          if (refreshed) throw new ProcessorUnavailable(`SCB ${call}: our access token was refused twice`, false);
          this.#forget(token);
          token = await this.token();
          refreshed = true;
          attempt--;
          continue;
        }
        const said = envelope ? describeAnswer(envelope) : `HTTP ${answer.status}`;
        throw new ProcessorUnavailable(`SCB ${call}: ${said}${CHECK_CREDENTIALS}`, false);
      }
      if (answer.status === 429 || answer.status >= 500) {
        if (safe && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, answer.retryAfterMs);
          continue;
        }
        const limited = answer.status === 429;
        const said = envelope ? ` ${describeAnswer(envelope)}` : '';
        throw new ProcessorUnavailable(
          `SCB ${call}: HTTP ${answer.status}${limited ? ' (rate limited)' : ''}${said}`,
          !safe && !limited,
        );
      }
      const ok = answer.status >= 200 && answer.status <= 299;
      if (envelope === null)
        throw new ProcessorUnavailable(
          `SCB ${call}: HTTP ${answer.status}, and the answer is not SCB's envelope`,
          !safe && ok,
        );
      if (ok || answer.status === 400 || answer.status === 404) return envelope;
      throw new ProcessorUnavailable(`SCB ${call}: HTTP ${answer.status} ${describeAnswer(envelope)}`, false);
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
    const body = tokenBody(this.#settings.apiKey, this.#settings.apiSecret);
    for (let attempt = 1; ; attempt++) {
      const issuedAt = this.#settings.now();
      let answer: HttpAnswer;
      try {
        answer = await this.#call('token', null, { body });
      } catch (error) {
        if (!(error as TransportFailure).timedOut && attempt < this.#retry.attempts) {
          await this.#backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`SCB token: ${(error as Error).message}`, false);
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < this.#retry.attempts) {
        await this.#backOff(attempt, answer.retryAfterMs);
        continue;
      }
      const envelope = parseEnvelope(answer.text);
      if (answer.status !== 200 || envelope?.code !== SCB_CODES.success) {
        const refused =
          answer.status === 401 || answer.status === 403 || envelope?.code === SCB_CODES.invalidCredentials;
        const said = envelope ? ` ${describeAnswer(envelope)}` : '';
        throw new ProcessorUnavailable(
          `SCB token: HTTP ${answer.status}${said}${refused ? CHECK_CREDENTIALS : ''}`,
          false,
        );
      }
      const { accessToken, expiresInSeconds } = parseToken(envelope.data);
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
    this.#settings.logger?.debug({ attempt, delayMs: Math.round(delay) }, 'SCB call backs off');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** One HTTP request within the timeout; rejects with a TransportFailure when no whole answer came. */
  #call(call: ScbCall, token: string | null, request: Request): Promise<HttpAnswer> {
    const { baseUrl, timeoutMs, apiKey } = this.#settings;
    const get = 'query' in request;
    const url = new URL(baseUrl + SCB_PATHS[call] + (get ? request.query : ''));
    const body = get ? '' : request.body;
    const headers: Record<string, string> = {
      ...scbHeaders(apiKey, newRequestUId(), token),
      ...(!get && { 'content-length': String(Buffer.byteLength(body)) }),
    };
    const started = Date.now();
    return new Promise<HttpAnswer>((resolve, reject) => {
      let sent = false;
      let timedOut = false;
      const outgoing = (this.#secure ? https : http).request(url, {
        method: get ? 'GET' : 'POST',
        headers,
        agent: this.#agent,
      });
      const timer = setTimeout(() => {
        timedOut = true;
        outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const fail = (error: Error & { code?: string }) => {
        clearTimeout(timer);
        const what = timedOut ? error.message : (error.code ?? error.message);
        this.#settings.logger?.debug({ call, sent, error: what, ms: Date.now() - started }, 'SCB call failed');
        reject(new TransportFailure(timedOut ? what : `connection failed (${what})`, sent, timedOut));
      };
      outgoing.on('finish', () => {
        sent = true;
      });
      outgoing.on('error', fail);
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) outgoing.destroy(new Error('the answer is too large'));
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
          this.#settings.logger?.debug({ call, status, ms: Date.now() - started }, 'SCB call answered');
          resolve({
            status,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfterMs: retryAfter(response.headers['retry-after']),
          });
        });
      });
      outgoing.end(body);
    });
  }
}

function retryAfter(header: string | undefined): number | null {
  return header !== undefined && /^\d{1,4}$/.test(header.trim()) ? Number(header.trim()) * 1000 : null;
}
