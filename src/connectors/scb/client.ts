// SCB's HTTP client (docs/connectors/scb.md): the OAuth token, timeouts, and the rule that decides
// what a failed call means for the money. It mirrors KBank's (connectors/kbank/client.ts), and
// shares its transport, back-off and token cache (connectors/http-client-core.ts):
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
import { scbBaseUrlProblem } from '../../config/scb.ts';
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import {
  CachedToken,
  HttpClientCore,
  type ClientLogger,
  type HttpAnswer,
  type IssuedToken,
  type RetryPolicy,
  type TransportFailure,
} from '../http-client-core.ts';
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

export type { ClientLogger, RetryPolicy };
export type BusinessCall = Exclude<ScbCall, 'token'>;

export type ScbClientSettings = {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
  now: () => number;
  retry?: Partial<RetryPolicy>;
  logger?: ClientLogger;
};

const CHECK_CREDENTIALS = ' (check SCB_API_KEY and SCB_API_SECRET)';

/** A request: a JSON body (POST) or a query string (GET). */
type Request = { body: string } | { query: string };

export class ScbClient {
  readonly #settings: ScbClientSettings;
  readonly #http: HttpClientCore;
  readonly #token: CachedToken;

  constructor(settings: ScbClientSettings) {
    const problem = scbBaseUrlProblem(settings.baseUrl);
    if (problem) throw new Error(`SCB base URL ${settings.baseUrl} ${problem}`);
    this.#settings = settings;
    this.#http = new HttpClientCore({ bank: 'SCB', ...settings });
    this.#token = new CachedToken(settings.now, () => this.#fetchToken());
  }

  /** Drops idle connections (tests, shutdown). */
  close(): void {
    this.#http.close();
  }

  /**
   * A business call; resolves with SCB's envelope when SCB answered with one (success, or a
   * business refusal on 400/404 for the connector to read). Throws ProcessorUnavailable when there
   * is no usable answer.
   */
  async send(call: BusinessCall, request: Request): Promise<Envelope> {
    const safe = call === 'inquiry';
    const { attempts } = this.#http.retry;
    let token = await this.token();
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.#call(call, token, request);
      } catch (error) {
        const failure = error as TransportFailure;
        if (safe && !failure.timedOut && attempt < attempts) {
          await this.#http.backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`SCB ${call}: ${failure.message}`, !safe && failure.sent);
      }
      const envelope = parseEnvelope(answer.text);
      if (answer.status === 401 || answer.status === 403) {
        if (envelope?.code === SCB_CODES.tokenExpired) {
          // Not processed: the same request may go again, with a new token, once.
          if (refreshed) throw new ProcessorUnavailable(`SCB ${call}: our access token was refused twice`, false);
          this.#token.forget(token);
          token = await this.token();
          refreshed = true;
          attempt--;
          continue;
        }
        const said = envelope ? describeAnswer(envelope) : `HTTP ${answer.status}`;
        throw new ProcessorUnavailable(`SCB ${call}: ${said}${CHECK_CREDENTIALS}`, false);
      }
      if (answer.status === 429 || answer.status >= 500) {
        if (safe && attempt < attempts) {
          await this.#http.backOff(attempt, answer.retryAfterMs);
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
    return this.#token.get();
  }

  async #fetchToken(): Promise<IssuedToken> {
    const body = tokenBody(this.#settings.apiKey, this.#settings.apiSecret);
    for (let attempt = 1; ; attempt++) {
      const issuedAt = this.#settings.now();
      let answer: HttpAnswer;
      try {
        answer = await this.#call('token', null, { body });
      } catch (error) {
        if (!(error as TransportFailure).timedOut && attempt < this.#http.retry.attempts) {
          await this.#http.backOff(attempt, null);
          continue;
        }
        throw new ProcessorUnavailable(`SCB token: ${(error as Error).message}`, false);
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < this.#http.retry.attempts) {
        await this.#http.backOff(attempt, answer.retryAfterMs);
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
      return { ...parseToken(envelope.data), issuedAt };
    }
  }

  /** One call to SCB with its headers and a new requestUId: a POST with a body or a GET with a query. */
  #call(call: ScbCall, token: string | null, request: Request): Promise<HttpAnswer> {
    const get = 'query' in request;
    return this.#http.request(call, {
      method: get ? 'GET' : 'POST',
      path: SCB_PATHS[call] + (get ? request.query : ''),
      headers: scbHeaders(this.#settings.apiKey, newRequestUId(), token),
      body: get ? '' : request.body,
    });
  }
}
