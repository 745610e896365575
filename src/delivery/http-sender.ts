// One HTTP POST of a notification, with the outbound policy enforced on the address actually
// connected to (guarded-lookup.ts), a hard deadline, no redirects and a bounded read of the
// answer. Never throws: every way a send can go wrong becomes an `error` outcome with a
// sentence an operator can act on.
//
// Deliberately node:http(s): global fetch/undici ignores the guarded lookup, and a proxy agent
// would connect somewhere else. Connections are reused (keep-alive) through a NotificationSender,
// whose agents are bound to one outbound policy:
//   - Every NEW connection goes through the guarded lookup (the agent hands the request's
//     `lookup` to net.connect), and the static URL check (scheme, IP literals, localhost names)
//     runs on every send, pooled connection or not.
//   - A pooled connection is only ever to an address that passed the policy when it was opened,
//     for the same host name and port (the agent pools by host:port), under the same policy (one
//     agent per sender, one sender per worker). Reusing it cannot reach anything new; DNS
//     rebinding changes only what later lookups answer, and those are checked again.
//   - A stale pooled connection (the merchant's server closed it while we picked it up) fails
//     before any answer with ECONNRESET/EPIPE. That is not the merchant's fault, so the same
//     request goes again at once on a fresh connection, within the same deadline, and only that
//     outcome is reported. The merchant may then see the notification twice (same webhook-id),
//     which at-least-once delivery allows.
//   - Retries of an event (`fresh: true`) always open a new connection: something already went
//     wrong with that endpoint, and on a fresh connection a reset or a refusal is unambiguously
//     the endpoint's answer.
//   - Idle connections close after IDLE_MS (sooner if the server's Keep-Alive header says so),
//     so a pooled connection is rarely older than the server's own idle timeout.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { mayRecordAnswerOf, type OutboundPolicy } from '../domain/outbound-policy.ts';
import { guardedRequestOptions, type Resolver } from './guarded-lookup.ts';

/** How much of the merchant's answer is kept: the first 1 KiB (docs/notifications.md "Retries"). */
export const EXCERPT_BYTES = 1024;

/** An idle pooled connection is closed after this long (well under common server idle timeouts). */
export const IDLE_MS = 1000;

export type SendRequest = {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  policy: OutboundPolicy;
  timeoutMs: number;
  resolver?: Resolver;
};

/** `excerpt` is null when the answer may not be recorded (a public-only sandbox's non-public target). */
export type SendOutcome =
  | { kind: 'response'; status: number; retryAfter: string | undefined; excerpt: string | null; latencyMs: number }
  | { kind: 'error'; error: string; latencyMs: number };

/** What is recorded instead of a socket error's detail when it may not be (`mayRecordAnswerOf`). */
export const HIDDEN_ERROR = 'no answer (details of a non-public target are not recorded: OUTBOUND_PUBLIC_ONLY)';

/**
 * A public-only sandbox records neither the answer's excerpt nor a socket error's detail of a
 * target that is not a public address (domain/outbound-policy.ts mayRecordAnswerOf).
 */
function shown(exchanged: Exchanged, policy: OutboundPolicy): SendOutcome {
  const { outcome, address, lookupFailed } = exchanged;
  // A refusal by the policy or a failed DNS lookup met no target: it is the gateway's own sentence.
  if (lookupFailed || mayRecordAnswerOf(address, policy)) return outcome;
  return outcome.kind === 'response' ? { ...outcome, excerpt: null } : { ...outcome, error: HIDDEN_ERROR };
}

/** A short, stable description of a socket or policy error. */
export function describeSendError(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = err instanceof Error ? err.message : String(error);
  switch (code) {
    case 'EOUTBOUNDPOLICY':
      return `refused by the outbound policy: ${message}`;
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ECONNRESET':
      return message === 'socket hang up'
        ? 'connection closed before an answer (ECONNRESET: socket hang up)'
        : 'connection reset (ECONNRESET)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS lookup failed (${code}): ${message}`;
    default:
      return code ? `${code}: ${message}` : message;
  }
}

/** One POST on a connection of its own, closed afterwards (tools and tests; the worker uses a NotificationSender). */
export function sendNotification(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  let options: http.RequestOptions;
  try {
    options = guardedRequestOptions(request.url, request.policy, request.resolver);
  } catch (error) {
    return Promise.resolve({ kind: 'error', error: describeSendError(error), latencyMs: performance.now() - started });
  }
  return exchange(options, request, false, started, request.timeoutMs).then((e) => shown(e, request.policy));
}

export type SenderOptions = { policy: OutboundPolicy; resolver?: Resolver };

/** Sends notifications under one outbound policy, reusing connections per origin (see the top of this file). */
export class NotificationSender {
  readonly #policy: OutboundPolicy;
  readonly #resolver: Resolver | undefined;
  readonly #http = new http.Agent({ keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' });
  readonly #https = new https.Agent({ keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' });
  /** guardedRequestOptions() per target URL: it depends on nothing but the URL and the policy, both fixed here. */
  readonly #options = new Map<string, http.RequestOptions>();

  constructor(options: SenderOptions) {
    this.#policy = options.policy;
    this.#resolver = options.resolver;
  }

  /** `fresh`: open a new connection instead of reusing one (retries of an event). */
  async send(request: {
    url: string;
    body: Buffer;
    headers: Record<string, string>;
    timeoutMs: number;
    fresh?: boolean;
  }): Promise<SendOutcome> {
    const started = performance.now();
    let options = this.#options.get(request.url);
    if (!options) {
      try {
        options = guardedRequestOptions(request.url, this.#policy, this.#resolver);
      } catch (error) {
        return { kind: 'error', error: describeSendError(error), latencyMs: performance.now() - started };
      }
      if (this.#options.size >= MAX_TARGETS) this.#options.clear();
      this.#options.set(request.url, options);
    }
    const agent = request.fresh ? false : options.protocol === 'https:' ? this.#https : this.#http;
    const first = await exchange(options, request, agent, started, request.timeoutMs);
    const left = request.timeoutMs - (performance.now() - started);
    // The pooled connection was closed under us: not an answer from the merchant. Once more on a
    // new connection (through the guarded lookup again), in what is left of the deadline.
    const last = first.stale && left > 0 ? await exchange(options, request, false, started, left) : first;
    return shown(last, this.#policy);
  }

  /** Closes pooled connections (none is in use once the worker has stopped sending). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** Target URLs whose request options are remembered at most (the memo starts over past this). */
const MAX_TARGETS = 10_000;

/** Errors of the guarded lookup: no connection was tried. */
const LOOKUP_CODES = new Set(['EOUTBOUNDPOLICY', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * What one exchange came to. `address`: the one connected to (or tried: a refused connect's error
 * names it), if known; `lookupFailed`: the guarded lookup refused or found nothing, so no target
 * was met; `stale`: the request failed on a reused connection before any answer arrived.
 */
type Exchanged = { outcome: SendOutcome; stale: boolean; address: string | undefined; lookupFailed: boolean };

/** Errors that, on a reused connection and before any answer, mean the connection was stale. */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * One request/answer. `agent`: a keep-alive agent (the connection goes back to its pool after a
 * complete answer) or false (a connection of its own). `stale`: the request failed on a reused
 * connection before any answer arrived.
 */
function exchange(
  options: http.RequestOptions,
  request: { body: Buffer; headers: Record<string, string> },
  agent: http.Agent | false,
  started: number,
  timeoutMs: number,
): Promise<Exchanged> {
  const elapsed = () => performance.now() - started;
  const transport = options.protocol === 'https:' ? https : http;

  return new Promise((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let received = 0;

    let address: string | undefined;
    let lookupFailed = false;
    /** `reusable`: the answer was read to its end, so the connection may serve the next request. */
    const settle = (outcome: SendOutcome, reusable = false, stale = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      address ??= req.socket?.remoteAddress;
      if (!reusable || !agent) req.destroy(); // also drops whatever of the answer we did not read
      resolve({ outcome, stale, address, lookupFailed });
    };
    const fromResponse = (complete = false) => {
      const res = response!;
      const retryAfter = res.headers['retry-after'];
      settle(
        {
          kind: 'response',
          status: res.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
          latencyMs: elapsed(),
        },
        complete,
      );
    };

    // One deadline for the whole exchange. If the status line arrived in time, the status
    // counts even when the body is still trickling in.
    const deadline = setTimeout(() => {
      if (response) fromResponse();
      else settle({ kind: 'error', error: `timeout: no answer within ${timeoutMs} ms`, latencyMs: elapsed() });
    }, timeoutMs);

    const req = transport.request(
      {
        ...options,
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(request.body.length) },
      },
      (res) => {
        response = res;
        address = res.socket?.remoteAddress;
        res.on('data', (chunk: Buffer) => {
          if (received < EXCERPT_BYTES) chunks.push(chunk);
          received += chunk.length;
          if (received >= EXCERPT_BYTES) fromResponse();
        });
        res.on('end', () => fromResponse(true));
        // The status line was read, so the merchant answered; a reset mid-body does not undo that.
        res.on('error', () => fromResponse());
        res.on('aborted', () => fromResponse());
      },
    );
    req.on('error', (error: NodeJS.ErrnoException & { address?: string }) => {
      if (response) return fromResponse();
      if (typeof error.address === 'string') address = error.address;
      lookupFailed = typeof error.code === 'string' && LOOKUP_CODES.has(error.code);
      const stale = req.reusedSocket && typeof error.code === 'string' && STALE_CODES.has(error.code);
      settle({ kind: 'error', error: describeSendError(error), latencyMs: elapsed() }, false, stale);
    });
    req.end(request.body);
  });
}
