// Faults below the routes — a request line or framing Node cannot parse, a URL Fastify cannot
// decode, a missing Host header, a client too slow to finish its request — answered in the
// documented error shape (docs/api.md, "Errors"; the initiation shape, the API's most common one)
// instead of Fastify's or Node's own bodies. Real clients read the body and ignore the status.
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';
import { initiationError } from '../../domain/responses.ts';
import { httpStatusOf } from './error-status.ts';

function errorFor(code: string | undefined): GatewayError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError(
        'MALFORMED_REQUEST',
        'The request was not received in time; send the headers and body without pausing.',
        'timeout',
      );
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError(
        'MALFORMED_REQUEST',
        'The request headers are larger than the limit.',
        'headers_too_large',
      );
    default:
      return new GatewayError(
        'MALFORMED_REQUEST',
        'The request could not be read as HTTP/1.1 (request line, headers or body framing).',
        'syntax',
      );
  }
}

/** Node's `clientError`: nothing was routed, so the answer is written to the socket directly. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return; // the client is gone
  // A response already started (headers sent) cannot be replaced; anything else gets ours.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !started) {
    const gatewayError = errorFor(error.code);
    const status = httpStatusOf(gatewayError);
    const body = JSON.stringify(initiationError(gatewayError, undefined));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's `frameworkErrors`: a URL it cannot decode (e.g. `%zz`) or a path parameter over its length limit. */
export function answerFrameworkError(
  cause: Error & { code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const error =
    cause.code === 'FST_ERR_BAD_URL'
      ? new GatewayError('MALFORMED_REQUEST', 'The request path is not a valid URL (bad percent-encoding).', 'syntax')
      : new GatewayError(
          'MALFORMED_REQUEST',
          'The request path could not be routed (too long or malformed).',
          'syntax',
        );
  reply
    .code(httpStatusOf(error))
    .header('content-type', 'application/json; charset=utf-8')
    .send(initiationError(error, undefined));
}

/** HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal has an empty body, so the check is ours. */
export function missingHost(request: FastifyRequest): GatewayError | undefined {
  if (request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor >= 1 && !request.headers.host) {
    return new GatewayError('MALFORMED_REQUEST', 'The Host header is required in HTTP/1.1.', 'syntax');
  }
  return undefined;
}
