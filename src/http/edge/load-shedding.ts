// Bounded in-flight work (docs/architecture.md, "Bounded work at the HTTP edge"). Past
// `maxInFlight` requests being worked on, a new one is answered 503 + Retry-After (after
// SHED_DELAY, below) instead of queueing behind the others: under overload, accepted requests
// keep their latency, memory stays bounded, and clients (or the load balancer) retry elsewhere.
// A request counts from the end of its headers until its response is finished or the client
// goes away (a slow body holds its slot; the request timeout bounds that). Liveness, readiness
// and metrics are never shed, so probes keep answering while the gateway sheds. Fastify's hook
// (fastify-edge.ts) and the JSON fast lane both admit requests through `admit` below.
//
// Shedding must cost far less than serving, or a storm of retries starves the accepted work:
// the answer is a body rendered once per error shape and sent as is (no Error object with its
// stack trace, no error handler, no serialiser).
//
// And it is held for SHED_DELAY (100 ms) before it is sent. A client that does not honour
// Retry-After sends its next request the moment it has the answer; answered at once, thousands of
// such connections kept the HTTP thread in one libuv poll phase for up to seconds (libuv keeps
// polling while sockets are readable), answering 503s, while the accepted requests waited: their
// store batches leave in the check phase (store/postgres/per-turn-batches.ts) and their timers in the
// timers phase, neither of which came round. Held, each shed connection is quiet for the delay,
// the loop turns, and the accepted work goes on: at 2,048 connections twice the answered
// requests and no request near a second (docs/performance.md). At most MAX_HELD_SHEDS answers
// wait at once (one per connection unless a client pipelines); past that they go at once.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../domain/errors.ts';
import { balanceError, initiationError, statusError } from '../../domain/responses.ts';
import type { ErrorShape } from './error-answer.ts';

const NEVER_SHED = new Set(['/healthz', '/readyz', '/metrics']);
const RETRY_AFTER_S = '1';
/** Shed answers held back at most at once (each a timer and a response object). */
export const MAX_HELD_SHEDS = 4096;

/** Requests in flight and shed so far, over both paths: Fastify's hook and the JSON fast lane. */
export type InFlightCounter = { current: number; shed: number; held: number };

export function atCapacity(): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway is at capacity; retry shortly.');
}

/** The in-flight counter and the shedding answer, one per app, used through `admit` below. */
export type LoadShedding = {
  readonly inFlight: InFlightCounter;
  readonly maxInFlight: number;
  /** Counts one shed request and gives its 503 body (undefined for the hosted page, whose error is HTML). */
  shed(shape: ErrorShape): string | undefined;
  /** Runs `answer` once the shed delay has passed (at once when it is 0 or too many answers wait already). */
  hold(answer: () => void): void;
};

export const SHED_HEADERS = { 'retry-after': RETRY_AFTER_S } as const;

export function createLoadShedding(
  limits: { maxInFlight: number; shedDelayMs: number },
  onShed?: () => void,
): LoadShedding {
  const { maxInFlight, shedDelayMs } = limits;
  const error = atCapacity();
  // Rendered once: a shed answer must not cost an error object, a handler and a serialiser each.
  const bodies: Partial<Record<ErrorShape, string>> = {
    initiation: JSON.stringify(initiationError(error, undefined)),
    status: JSON.stringify(statusError(error, undefined)),
    balance: JSON.stringify(balanceError(error, undefined)),
  };
  const state = { current: 0, shed: 0, held: 0 };
  return {
    inFlight: state,
    maxInFlight,
    shed(shape) {
      state.shed += 1;
      onShed?.();
      return bodies[shape];
    },
    hold(answer) {
      if (shedDelayMs === 0 || state.held >= MAX_HELD_SHEDS) return answer();
      state.held += 1;
      setTimeout(() => {
        state.held -= 1;
        answer();
      }, shedDelayMs);
    },
  };
}

/** A shed request: hold it (`LoadShedding.hold`), then answer 503 with `body` (undefined: the page's HTML error). */
export type Shed = { body: string | undefined };

/**
 * The admission of one request to `path`, once its headers are read: counted in flight until
 * its response closes, or shed (returned) when the limit is reached. Probes are neither.
 */
export function admit(
  shedding: LoadShedding,
  path: string,
  shape: ErrorShape,
  response: ServerResponse,
): Shed | undefined {
  if (NEVER_SHED.has(path)) return undefined;
  const inFlight = shedding.inFlight;
  if (inFlight.current >= shedding.maxInFlight) return { body: shedding.shed(shape) };
  inFlight.current += 1;
  // 'close' fires exactly once per response, whether it finished or the client went away.
  response.once('close', () => {
    inFlight.current -= 1;
  });
  return undefined;
}
