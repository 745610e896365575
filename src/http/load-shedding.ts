// Bounded in-flight work (TIGER_STYLE: a limit on everything). Past `maxInFlight` requests
// being worked on, a new one is answered 503 + Retry-After at once instead of queueing behind
// the others: under overload, accepted requests keep their latency, memory stays bounded, and
// clients (or the load balancer) retry elsewhere. A request counts from the end of its headers
// until its response is finished or the client goes away (a slow body holds its slot; the
// request timeout bounds that). Liveness, readiness and metrics are never shed, so probes keep
// answering while the gateway sheds.
//
// Shedding must cost far less than serving, or a storm of retries starves the accepted work:
// the answer is a body rendered once per error shape and sent as is (no Error object with its
// stack trace, no error handler, no serialiser).
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../domain/errors.ts';
import { balanceError, initiationError, statusError } from '../domain/responses.ts';
import type { ErrorShape } from './error-answer.ts';

const NEVER_SHED = new Set(['/healthz', '/readyz', '/metrics']);
const RETRY_AFTER_S = '1';

/** Requests in flight and shed so far; the JSON fast lane (json-fast-lane.ts) counts the requests it takes here too. */
export type InFlightCounter = { current: number; shed: number };

function atCapacity(): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway is at capacity; retry shortly.');
}

/** The in-flight counter and the shedding answer, shared by the Fastify hook below and the JSON fast lane. */
export type LoadShedding = {
  readonly inFlight: InFlightCounter;
  readonly maxInFlight: number;
  /** Counts one shed request and gives its 503 body (undefined for the hosted page, whose error is HTML). */
  shed(shape: ErrorShape): string | undefined;
};

export const SHED_HEADERS = { 'retry-after': RETRY_AFTER_S } as const;

export function registerLoadShedding(app: FastifyInstance, maxInFlight: number, onShed?: () => void): LoadShedding {
  const error = atCapacity();
  const bodies: Partial<Record<ErrorShape, string>> = {
    initiation: JSON.stringify(initiationError(error, undefined)),
    status: JSON.stringify(statusError(error, undefined)),
    balance: JSON.stringify(balanceError(error, undefined)),
  };
  const state = { current: 0, shed: 0 };
  const shedding: LoadShedding = {
    inFlight: state,
    maxInFlight,
    shed(shape) {
      state.shed += 1;
      onShed?.();
      return bodies[shape];
    },
  };
  app.addHook('onRequest', async (request, reply) => {
    if (NEVER_SHED.has(request.url)) return;
    if (state.current >= maxInFlight) {
      const body = shedding.shed(request.routeOptions.config?.errorShape ?? 'initiation');
      if (body === undefined) throw atCapacity(); // the hosted page's HTML error, through the error handler
      return reply.code(503).headers(SHED_HEADERS).type('application/json; charset=utf-8').send(body);
    }
    state.current += 1;
    // 'close' fires exactly once per response, whether it finished or the client went away.
    reply.raw.once('close', () => {
      state.current -= 1;
    });
  });
  return shedding;
}
