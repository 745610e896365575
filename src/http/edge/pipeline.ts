// The HTTP edge pipeline: what every request goes through before and after its route, whether
// Fastify routed it (fastify-edge.ts installs it as hooks and handlers) or the JSON fast lane
// took it (json-fast-lane.ts calls the same functions directly). Each step exists once:
//   - the request id (`newRequestId`), returned as x-request-id and logged with every line;
//   - the draining answer (`drainingError`): 503 with Connection: close while shutting down;
//   - admission and shedding (`admit`, load-shedding.ts), before the body is read;
//   - the error answer (`answerError`, error-answer.ts), with the store-unavailable report;
//   - the access-log line (`logCompleted`, access-log.ts) and the answer's count in the metrics
//     (`AnswerCounts`: gateway_http_requests_total and the latency histogram, once per answer).
// docs/architecture.md ("JSON fast lane", "Bounded work at the HTTP edge", "Logging") says why.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { GatewayError } from '../../domain/errors.ts';
import type { StoreFaults } from './error-answer.ts';
import type { LoadShedding } from './load-shedding.ts';

export { admit, atCapacity, SHED_HEADERS } from './load-shedding.ts';
export { answerError } from './error-answer.ts';
export { logCompleted } from './access-log.ts';

/**
 * Where every answer is counted (app/gateway-metrics.ts), by route pattern, method and status.
 * Fastify's path names the route per answer; the lane binds one counter per operation up front.
 */
export type AnswerCounts = {
  requestAnswered(route: string, method: string, status: number, seconds: number): void;
  routeCounter(route: string, method: string): (status: number, seconds: number) => void;
};

/** What the edge needs, one per app: shared by Fastify's hooks and the JSON fast lane. */
export type EdgePipeline = StoreFaults & {
  shedding: LoadShedding;
  logger: Logger;
  answers: AnswerCounts;
  /** True once the gateway is shutting down: requests are answered 503 and their connections closed. */
  draining: () => boolean;
  /**
   * While the gateway stops accepting, the draining answer waits for this: a client it sends away
   * reconnects at once, and a connection the kernel completes just before its listener closes is
   * reset (server.ts, "stop").
   */
  drainingHold?: () => Promise<void> | undefined;
};

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A request's id: returned as x-request-id and logged as reqId, so a merchant's report finds its lines. */
export function newRequestId(): string {
  return randomUUID();
}

/** Tells keep-alive clients to reconnect elsewhere: the socket closes after the draining answer. */
export const DRAINING_HEADERS = { connection: 'close' } as const;

export function drainingError(): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway is shutting down; retry shortly.');
}
