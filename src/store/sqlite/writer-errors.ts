// Errors crossing the thread boundary of the SQLite writer: structured clone keeps an Error's
// message but not its class or its driver fields, so both sides agree on this plain shape.
// node:sqlite's codes survive (isStoreUnavailable reads them: disk full → 503), and a domain
// GatewayError thrown by a store job comes back as a GatewayError with its tag (→ its status).
import { GatewayError, type ErrorTag, type MalformedKind } from '../../domain/errors.ts';

export type SerializedError = {
  message: string;
  name?: string;
  code?: unknown;
  errcode?: unknown;
  errstr?: unknown;
  tag?: ErrorTag;
  malformed?: MalformedKind;
};

export function serializeError(error: unknown): SerializedError {
  if (error instanceof GatewayError)
    return { name: 'GatewayError', message: error.message, tag: error.tag, malformed: error.malformed };
  if (!(error instanceof Error)) return { message: String(error) };
  const e = error as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  return { message: e.message, code: e.code, errcode: e.errcode, errstr: e.errstr };
}

export function deserializeError(error: SerializedError): Error {
  if (error.name === 'GatewayError' && error.tag) return new GatewayError(error.tag, error.message, error.malformed);
  return Object.assign(new Error(error.message), { code: error.code, errcode: error.errcode, errstr: error.errstr });
}
