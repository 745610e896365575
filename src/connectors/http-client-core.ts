// The HTTP core both bank clients share (docs/connectors/kbank.md, docs/connectors/scb.md): one
// keep-alive agent, one request within a timeout that covers connecting, sending and the whole
// answer, the back-off between tries, and the cached OAuth token. What an answer means for the
// money (which calls may go twice, which statuses are refusals) stays in each bank's client.
//
// Nothing secret is logged here: no body, no header, no token; only the call's name, its status
// and how long it took.
import http from 'node:http';
import https from 'node:https';

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

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 };
/** A token is refreshed this long before the bank says it expires. */
const REFRESH_EARLY_MS = 60_000;
/** The largest answer read; a bank's are a few hundred bytes, an SCB inquiry a few KiB. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** Why a call got no answer; `sent` once the whole request was handed to the connection. */
export class TransportFailure extends Error {
  readonly sent: boolean;
  readonly timedOut: boolean;
  constructor(message: string, sent: boolean, timedOut: boolean) {
    super(message);
    this.sent = sent;
    this.timedOut = timedOut;
  }
}

export type HttpAnswer = { status: number; text: string; retryAfterMs: number | null };

export type HttpClientCoreSettings = {
  /** The bank's name in log lines ("KBank", "SCB"). */
  bank: string;
  baseUrl: string;
  /** PEM client certificate and key (two-way TLS); `ca` replaces the system's CAs (a test's own CA). */
  tls?: { cert?: string; key?: string; ca?: string };
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  logger?: ClientLogger;
};

export type OutgoingRequest = {
  method: 'GET' | 'POST';
  /** The path below the base URL, with its query string if any. */
  path: string;
  /** The bank's headers; `content-length` is added for a POST. */
  headers: Record<string, string>;
  body: string;
};

export class HttpClientCore {
  readonly retry: RetryPolicy;
  readonly #settings: HttpClientCoreSettings;
  readonly #baseUrl: string;
  readonly #agent: http.Agent;
  readonly #secure: boolean;

  constructor(settings: HttpClientCoreSettings) {
    this.#settings = settings;
    this.#baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...settings.retry };
    this.#secure = new URL(settings.baseUrl).protocol === 'https:';
    this.#agent = this.#secure
      ? new https.Agent({ keepAlive: true, maxSockets: 32, ...settings.tls })
      : new http.Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** Drops idle connections (tests, shutdown). */
  close(): void {
    this.#agent.destroy();
  }

  async backOff(attempt: number, retryAfterMs: number | null): Promise<void> {
    const { baseDelayMs, maxDelayMs } = this.retry;
    const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    // Jitter, so instances that failed together do not come back together.
    const delay = Math.min(maxDelayMs, Math.max(retryAfterMs ?? 0, exponential * (0.5 + Math.random() / 2)));
    this.#settings.logger?.debug({ attempt, delayMs: Math.round(delay) }, `${this.#settings.bank} call backs off`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** One HTTP request within the timeout; rejects with a TransportFailure when no whole answer came. */
  request(call: string, outgoing: OutgoingRequest): Promise<HttpAnswer> {
    const { timeoutMs, logger, bank } = this.#settings;
    const { method, body } = outgoing;
    const url = new URL(this.#baseUrl + outgoing.path);
    const headers: Record<string, string> = {
      ...outgoing.headers,
      ...(method === 'POST' && { 'content-length': String(Buffer.byteLength(body)) }),
    };
    const started = Date.now();
    return new Promise<HttpAnswer>((resolve, reject) => {
      let sent = false;
      let timedOut = false;
      const request = (this.#secure ? https : http).request(url, { method, headers, agent: this.#agent });
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const fail = (error: Error & { code?: string }) => {
        clearTimeout(timer);
        const what = timedOut ? error.message : (error.code ?? error.message);
        logger?.debug({ call, sent, error: what, ms: Date.now() - started }, `${bank} call failed`);
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
          logger?.debug({ call, status, ms: Date.now() - started }, `${bank} call answered`);
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

export type IssuedToken = { accessToken: string; expiresInSeconds: number; issuedAt: number };

/**
 * The access token, cached per process: fetched by one call however many wait for it, refreshed
 * 60 s (or half its life, when shorter than two minutes) before the bank says it expires.
 */
export class CachedToken {
  readonly #now: () => number;
  readonly #fetch: () => Promise<IssuedToken>;
  #token: { value: string; refreshAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(now: () => number, fetch: () => Promise<IssuedToken>) {
    this.#now = now;
    this.#fetch = fetch;
  }

  /** The cached access token, or a new one (one token call however many wait). */
  get(): Promise<string> {
    const cached = this.#token;
    if (cached && this.#now() < cached.refreshAt) return Promise.resolve(cached.value);
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Drops `token` when it is still the cached one: the bank refused it. */
  forget(token: string): void {
    if (this.#token?.value === token) this.#token = undefined;
  }

  async #refresh(): Promise<string> {
    const { accessToken, expiresInSeconds, issuedAt } = await this.#fetch();
    const lifeMs = expiresInSeconds * 1000;
    const early = lifeMs > 2 * REFRESH_EARLY_MS ? REFRESH_EARLY_MS : lifeMs / 2;
    this.#token = { value: accessToken, refreshAt: issuedAt + lifeMs - early };
    return accessToken;
  }
}

function retryAfter(header: string | undefined): number | null {
  return header !== undefined && /^\d{1,4}$/.test(header.trim()) ? Number(header.trim()) * 1000 : null;
}
