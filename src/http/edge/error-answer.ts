// How an error becomes an answer, shared by Fastify's error handler (fastify-edge.ts) and the
// JSON fast lane (json-fast-lane.ts) through `answerError`, so both answer every failure with the
// same status, headers and body, and both report the store's faults to its health the same way.
// The status itself comes from the one table in error-status.ts.
import type { FastifyError } from 'fastify';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError } from '../../domain/errors.ts';
import { balanceError, initiationError, statusError } from '../../domain/responses.ts';
import { refundError } from '../../domain/refund-response.ts';
import { httpStatusOf } from './error-status.ts';
import type { JsonObject } from './request-body.ts';

/** Which response shape a route's errors take (real clients parse one shape per operation). */
export type ErrorShape = 'initiation' | 'status' | 'balance' | 'page' | 'refund';
export type JsonErrorShape = Exclude<ErrorShape, 'page'>;

/** Whether an error is the store being unavailable (answered 503), and where that is reported (readiness). */
export type StoreFaults = {
  isStoreUnavailable: (error: unknown) => boolean;
  onStoreUnavailable: () => void;
};

/** An error's answer: `body` is undefined for the 'page' shape, whose HTML the hosted page renders itself. */
export type ErrorAnswer = {
  error: GatewayError;
  status: number;
  headers: Record<string, string>;
  body: object | undefined;
};

/**
 * The answer to anything a request threw, in its route's error shape; fields the request body
 * carried (trackid, …) are echoed. A store fault (not a GatewayError a use case chose) marks the
 * store unhealthy, so readiness probes it again.
 */
export function answerError(
  thrown: unknown,
  shape: ErrorShape,
  requestBody: unknown,
  log: Pick<Logger, 'warn' | 'error'>,
  store: StoreFaults,
): ErrorAnswer {
  const error = toGatewayError(thrown, log, store.isStoreUnavailable);
  if (error.tag === 'SERVICE_UNAVAILABLE' && !isGatewayError(thrown)) store.onStoreUnavailable();
  const echo = isJsonObject(requestBody) ? requestBody : undefined;
  return {
    error,
    status: httpStatusOf(error),
    headers: errorHeaders(error),
    body: shape === 'page' ? undefined : jsonErrorBody(error, shape, echo),
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Any thrown value as the GatewayError to answer with: framework refusals of the request as
 * MALFORMED_REQUEST, an unreachable store as SERVICE_UNAVAILABLE (logged as a warning), anything
 * else as INTERNAL_ERROR (logged as an error: that one is a bug).
 */
export function toGatewayError(
  error: unknown,
  log: Pick<Logger, 'warn' | 'error'>,
  isStoreUnavailable: (error: unknown) => boolean,
): GatewayError {
  if (isGatewayError(error)) return error;
  const code = (error as FastifyError | undefined)?.code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('MALFORMED_REQUEST', "The Content-Type must be 'application/json'.", 'content_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('MALFORMED_REQUEST', 'The request body is larger than the limit.', 'too_large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('MALFORMED_REQUEST', 'The request body is empty; send a JSON object.', 'syntax');
  }
  const statusCode = (error as FastifyError | undefined)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new GatewayError('MALFORMED_REQUEST', 'The request could not be read.', 'syntax');
  }
  if (isStoreUnavailable(error)) {
    log.warn({ err: error }, 'store unavailable');
    return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway cannot reach its store right now; retry shortly.');
  }
  log.error({ err: error }, 'unexpected error');
  return new GatewayError(
    'INTERNAL_ERROR',
    'An internal error occurred; the request was not completed. Retry later or contact support with the x-request-id.',
  );
}

/** Headers an error answer carries besides its body's content type. */
export function errorHeaders(error: GatewayError): Record<string, string> {
  if (error.tag === 'RATE_LIMITED') return { 'retry-after': '1' };
  if (error.tag === 'SERVICE_UNAVAILABLE') return { 'retry-after': '5' };
  if (error.malformed === 'timeout') return { connection: 'close' };
  return {};
}

/** The JSON body of an error in an operation's response shape; fields the request carried (trackid, …) are echoed. */
export function jsonErrorBody(error: GatewayError, shape: JsonErrorShape, body: JsonObject | undefined): object {
  switch (shape) {
    case 'balance':
      return balanceError(error, body);
    case 'refund':
      return refundError(error, body);
    case 'status':
      return statusError(error, body);
    case 'initiation':
      return initiationError(error, body);
  }
}
