// The one table from domain error tags to HTTP statuses (docs/api.md, "Errors").
import type { ErrorTag, GatewayError, MalformedKind } from '../../domain/errors.ts';

const STATUS: Record<ErrorTag, number> = {
  INVALID_CREDENTIALS: 401,
  MERCHANT_DISABLED: 403,
  RATE_LIMITED: 429,
  MALFORMED_REQUEST: 400,
  MISSING_FIELD: 400,
  INVALID_FIELD: 400,
  AMOUNT_TOO_LOW: 400,
  AMOUNT_TOO_HIGH: 400,
  UNSUPPORTED_PAYMENT_METHOD: 400,
  UNSUPPORTED_CURRENCY: 400,
  DUPLICATE_TRACKID: 409,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REFUND_NOT_ALLOWED: 409,
  REFUND_EXCEEDS_AVAILABLE: 409,
  INSUFFICIENT_BALANCE: 409,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export const MALFORMED_STATUS: Record<MalformedKind, number> = {
  syntax: 400,
  not_object: 400,
  too_large: 413,
  content_type: 415,
  timeout: 408,
  headers_too_large: 431,
};

export function httpStatusOf(error: GatewayError): number {
  if (error.tag === 'MALFORMED_REQUEST' && error.malformed) return MALFORMED_STATUS[error.malformed];
  return STATUS[error.tag];
}
