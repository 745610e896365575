// One HTTP POST of a notification, with the outbound policy enforced on the address actually
// connected to (guarded-lookup.ts), a hard deadline, no redirects and a bounded read of the
// answer. Never throws: every way a send can go wrong becomes an `error` outcome with a
// sentence an operator can act on.
//
// Deliberately node:http(s) with `agent: false`: global fetch/undici ignores the guarded
// lookup, a proxy agent would connect somewhere else, and a fresh connection per attempt
// means a stale keep-alive socket can never turn a good attempt into a spurious reset.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import { guardedRequestOptions, type Resolver } from './guarded-lookup.ts';

/** How much of the merchant's answer is kept (contract §5: the first 1 KiB). */
export const EXCERPT_BYTES = 1024;

export type SendRequest = {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  policy: OutboundPolicy;
  timeoutMs: number;
  resolver?: Resolver;
};

export type SendOutcome =
  | { kind: 'response'; status: number; retryAfter: string | undefined; excerpt: string; latencyMs: number }
  | { kind: 'error'; error: string; latencyMs: number };

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
      return message === 'socket hang up' ? 'connection closed before an answer (ECONNRESET: socket hang up)' : 'connection reset (ECONNRESET)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS lookup failed (${code}): ${message}`;
    default:
      return code ? `${code}: ${message}` : message;
  }
}

export function sendNotification(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;

  let options: http.RequestOptions;
  try {
    options = guardedRequestOptions(request.url, request.policy, request.resolver);
  } catch (error) {
    return Promise.resolve({ kind: 'error', error: describeSendError(error), latencyMs: elapsed() });
  }
  const transport = options.protocol === 'https:' ? https : http;

  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let received = 0;

    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy(); // also drops whatever of the answer we did not read
      resolve(outcome);
    };
    const fromResponse = () => {
      const res = response!;
      const retryAfter = res.headers['retry-after'];
      settle({
        kind: 'response',
        status: res.statusCode ?? 0,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
        latencyMs: elapsed(),
      });
    };

    // One deadline for the whole exchange. If the status line arrived in time, the status
    // counts even when the body is still trickling in.
    const deadline = setTimeout(() => {
      if (response) fromResponse();
      else settle({ kind: 'error', error: `timeout: no answer within ${request.timeoutMs} ms`, latencyMs: elapsed() });
    }, request.timeoutMs);

    const req = transport.request(
      {
        ...options,
        method: 'POST',
        agent: false,
        headers: { ...request.headers, 'content-length': String(request.body.length) },
      },
      (res) => {
        response = res;
        res.on('data', (chunk: Buffer) => {
          if (received < EXCERPT_BYTES) chunks.push(chunk);
          received += chunk.length;
          if (received >= EXCERPT_BYTES) fromResponse();
        });
        res.on('end', fromResponse);
        // The status line was read, so the merchant answered; a reset mid-body does not undo that.
        res.on('error', fromResponse);
        res.on('aborted', fromResponse);
      },
    );
    req.on('error', (error) => {
      if (response) fromResponse();
      else settle({ kind: 'error', error: describeSendError(error), latencyMs: elapsed() });
    });
    req.end(request.body);
  });
}
