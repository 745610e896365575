// The JSON fast lane: the hot operations (initiation, status query) answered straight from
// node:http, before Fastify routes the request.
//
// Why: on the HTTP thread Fastify's per-request machinery (router, request and reply objects,
// a child logger with redaction, hook chains, the content-type parser, the serialiser) cost
// about a fifth of an initiation's CPU in a side-by-side run (docs/performance.md). The lane
// keeps what those requests need: the same operation code (json-operation.ts) and the same edge
// pipeline as Fastify's hooks (pipeline.ts: request id, admission and shedding, error answers,
// access-log line, the answer's count in the metrics), called directly. Each operation's metrics
// counter is bound once, when the lane is built, so counting an answer builds no label objects.
//
// Only the plain case takes the lane: POST to the operation's exact path (no query, no trailing
// slash), Content-Type `application/json` (optionally `; charset=utf-8`), a Content-Length from 1
// to the body limit, no Content-Encoding or Transfer-Encoding, a Host header, and not draining.
// Anything else goes to Fastify, which answers it as it always has (415, 413, empty body,
// shutting down, …). Over the in-flight limit the lane sheds with Fastify's exact 503 (`admit`).
// test/http/edge/json-fast-lane.test.ts sends the same requests both ways and compares the answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../domain/errors.ts';
import type { ClientAddress } from './client-address.ts';
import type { JsonOperation } from './json-operation.ts';
import {
  admit,
  answerError,
  JSON_TYPE,
  logCompleted,
  newRequestId,
  SHED_HEADERS,
  type EdgePipeline,
} from './pipeline.ts';

export type FastLaneOptions = EdgePipeline & {
  operations: JsonOperation[];
  bodyLimit: number;
  clientAddress: ClientAddress;
};

/** Takes a request and returns true, or returns false (having touched nothing) for Fastify to handle it. */
export type FastLane = (request: IncomingMessage, response: ServerResponse) => boolean;

const CLOSE = { connection: 'close' };

export function createJsonFastLane(options: FastLaneOptions): FastLane {
  const byPath = new Map(
    options.operations.map((operation) => [
      operation.path,
      { operation, counted: options.answers.routeCounter(operation.path, 'POST') },
    ]),
  );
  const { bodyLimit } = options;
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const lane = byPath.get(request.url ?? '');
    if (lane === undefined) return false;
    const { operation } = lane;
    const headers = request.headers;
    if (!isPlainJson(headers['content-type'])) return false;
    if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const length = contentLength(headers['content-length']);
    if (length === undefined || length > bodyLimit) return false;
    if (headers.host === undefined || headers.host === '') return false;
    if (options.draining()) return false;
    const exchange = new Exchange(operation, lane.counted, request, response, options);
    const shed = admit(options.shedding, operation.path, operation.errorShape, response);
    if (shed === undefined) exchange.take();
    // Shed without reading the body: under overload shedding must cost far less than serving.
    else options.shedding.hold(() => exchange.answerShed(shed.body!));
    return true;
  };
}

/** One request the lane took: its id, start time and client, and how it is answered and logged. */
class Exchange {
  readonly #operation: JsonOperation;
  readonly #counted: (status: number, seconds: number) => void;
  readonly #request: IncomingMessage;
  readonly #response: ServerResponse;
  readonly #edge: FastLaneOptions;
  readonly #id = newRequestId();
  readonly #started = performance.now();
  readonly #clientAddress: string | undefined;

  constructor(
    operation: JsonOperation,
    counted: (status: number, seconds: number) => void,
    request: IncomingMessage,
    response: ServerResponse,
    edge: FastLaneOptions,
  ) {
    this.#operation = operation;
    this.#counted = counted;
    this.#request = request;
    this.#response = response;
    this.#edge = edge;
    this.#clientAddress = edge.clientAddress(request);
  }

  /** Reads the body, runs the operation and answers. */
  take(): void {
    const request = this.#request;
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
        this.#fail(
          new GatewayError('MALFORMED_REQUEST', 'The request body is not valid JSON.', 'syntax'),
          undefined,
          CLOSE,
        );
        return;
      }
      this.#operation.handle(body, this.#clientAddress).then(
        (answer) => {
          // An answer that cannot be written (a bug) is a 500 like any other, never an unhandled rejection.
          try {
            this.#send(200, JSON.stringify(answer.body), answer.headers);
          } catch (error) {
            if (!this.#response.headersSent) this.#fail(error, body);
          }
        },
        (error: unknown) => this.#fail(error, body),
      );
    });
  }

  /** The shed 503, once the hold is over; its body was rendered once per shape (load-shedding.ts). */
  answerShed(body: string): void {
    if (this.#response.destroyed) return; // the client went away meanwhile
    this.#send(503, body, SHED_HEADERS);
  }

  #fail(error: unknown, body: unknown, extra?: Record<string, string>): void {
    const edge = this.#edge;
    const log = edge.logger.child({ reqId: this.#id });
    const answer = answerError(error, this.#operation.errorShape, body, log, edge);
    this.#send(answer.status, JSON.stringify(answer.body), { ...answer.headers, ...extra });
  }

  #send(status: number, json: string, extra: Readonly<Record<string, string>> | undefined): void {
    this.#response.writeHead(status, {
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(json),
      'x-request-id': this.#id,
      ...extra,
    });
    this.#response.end(json);
    const req = { id: this.#id, method: 'POST', url: this.#operation.path, ip: this.#clientAddress };
    const elapsedMs = performance.now() - this.#started;
    logCompleted(this.#edge.logger, req, status, elapsedMs);
    this.#counted(status, elapsedMs / 1000);
  }
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
