// The JSON fast lane: the hot operations (initiation, status query) answered straight from
// node:http, before Fastify routes the request.
//
// Why: on the HTTP thread Fastify's per-request machinery (router, request and reply objects,
// a child logger with redaction, hook chains, the content-type parser, the serialiser) cost
// about a fifth of an initiation's CPU in a side-by-side run (docs/performance.md). The lane
// keeps what those requests need: the same operation code (json-operation.ts), the same error
// answers (error-answer.ts), the same in-flight limit, request id and access log line.
//
// Only the plain case takes the lane: POST to the operation's exact path (no query, no trailing
// slash), Content-Type `application/json` (optionally `; charset=utf-8`), a Content-Length from 1
// to the body limit, no Content-Encoding or Transfer-Encoding, a Host header, and not draining.
// Anything else goes to Fastify, which answers it as it always has (415, 413, empty body,
// shutting down, …). Over the in-flight limit the lane sheds with Fastify's exact 503.
// test/http/json-fast-lane.test.ts sends the same requests both ways and compares the answers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError } from '../domain/errors.ts';
import type { ClientAddress } from './client-address.ts';
import { errorHeaders, jsonErrorBody, toGatewayError } from './error-answer.ts';
import { httpStatusOf } from './error-status.ts';
import type { JsonOperation } from './json-operation.ts';
import { SHED_HEADERS, type LoadShedding } from './load-shedding.ts';
import { logRequestCompleted } from './access-log.ts';
import type { JsonObject } from './request-body.ts';

export type FastLaneOptions = {
  operations: JsonOperation[];
  bodyLimit: number;
  shedding: LoadShedding;
  draining: () => boolean;
  clientAddress: ClientAddress;
  logger: Logger;
  /** Whether an error is the store being unavailable (answered 503), and where that is reported. */
  isStoreUnavailable: (error: unknown) => boolean;
  /** Called when an answer is a 503 because the store could not be reached (store health). */
  onStoreUnavailable: () => void;
};

/** Takes a request and returns true, or returns false (having touched nothing) for Fastify to handle it. */
export type FastLane = (request: IncomingMessage, response: ServerResponse) => boolean;

const JSON_TYPE = 'application/json; charset=utf-8';
const CLOSE = { connection: 'close' };

export function createJsonFastLane(options: FastLaneOptions): FastLane {
  const byPath = new Map(options.operations.map((operation) => [operation.path, operation]));
  const { bodyLimit, shedding } = options;
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const operation = byPath.get(request.url ?? '');
    if (operation === undefined) return false;
    const headers = request.headers;
    if (!isPlainJson(headers['content-type'])) return false;
    if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const length = contentLength(headers['content-length']);
    if (length === undefined || length > bodyLimit) return false;
    if (headers.host === undefined || headers.host === '') return false;
    if (options.draining()) return false;
    if (shedding.inFlight.current >= shedding.maxInFlight) shed(operation, request, response, options);
    else take(operation, request, response, options);
    return true;
  };
}

/**
 * Over the in-flight limit: the same 503 as Fastify's shedding hook (load-shedding.ts), without
 * reading the body, held for the shed delay. Under overload shedding must cost far less than
 * serving, and the lane's path is the cheap one.
 */
function shed(
  operation: JsonOperation,
  request: IncomingMessage,
  response: ServerResponse,
  options: FastLaneOptions,
): void {
  const started = performance.now();
  const id = randomUUID();
  const body = options.shedding.shed(operation.errorShape)!;
  options.shedding.hold(() => {
    if (response.destroyed) return; // the client went away meanwhile
    response.writeHead(503, {
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(body),
      'x-request-id': id,
      ...SHED_HEADERS,
    });
    response.end(body);
    logRequestCompleted(
      options.logger,
      { id, method: 'POST', url: operation.path, ip: options.clientAddress(request) },
      503,
      performance.now() - started,
    );
  });
}

function take(
  operation: JsonOperation,
  request: IncomingMessage,
  response: ServerResponse,
  options: FastLaneOptions,
): void {
  const { logger } = options;
  const inFlight = options.shedding.inFlight;
  const started = performance.now();
  const id = randomUUID();
  // 'close' fires exactly once per response, whether it finished or the client went away.
  inFlight.current += 1;
  response.once('close', () => {
    inFlight.current -= 1;
  });
  const clientAddress = options.clientAddress(request);

  const send = (status: number, body: object, extra: Record<string, string> | undefined): void => {
    const json = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(json),
      'x-request-id': id,
      ...extra,
    });
    response.end(json);
    logRequestCompleted(
      logger,
      { id, method: 'POST', url: operation.path, ip: clientAddress },
      status,
      performance.now() - started,
    );
  };
  const fail = (error: unknown, body: unknown, extra?: Record<string, string>): void => {
    const gatewayError = toGatewayError(error, logger.child({ reqId: id }), options.isStoreUnavailable);
    if (gatewayError.tag === 'SERVICE_UNAVAILABLE' && !isGatewayError(error)) options.onStoreUnavailable();
    const echo = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as JsonObject) : undefined;
    send(httpStatusOf(gatewayError), jsonErrorBody(gatewayError, operation.errorShape, echo), {
      ...errorHeaders(gatewayError),
      ...extra,
    });
  };

  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A client that goes away mid-body gets no answer; Node closes the socket and 'close' frees the slot.
  request.on('error', () => {});
  request.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    } catch {
      // Fastify closes the connection after a body it could not parse; so does the lane.
      fail(new GatewayError('MALFORMED_REQUEST', 'The request body is not valid JSON.', 'syntax'), undefined, CLOSE);
      return;
    }
    operation.handle(body, clientAddress).then(
      (answer) => {
        // An answer that cannot be written (a bug) is a 500 like any other, never an unhandled rejection.
        try {
          send(200, answer.body, answer.headers);
        } catch (error) {
          if (!response.headersSent) fail(error, body);
        }
      },
      (error: unknown) => fail(error, body),
    );
  });
}

/** `application/json`, alone or with `charset=utf-8`: the forms real clients send. */
function isPlainJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const value = contentType.toLowerCase();
  return (
    value === 'application/json' ||
    value === 'application/json; charset=utf-8' ||
    value === 'application/json;charset=utf-8'
  );
}

/** A Content-Length of 1 or more as a number; undefined when absent, zero or not plain digits. */
function contentLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^[0-9]{1,10}$/.test(header)) return undefined;
  const length = Number(header);
  return length > 0 ? length : undefined;
}
