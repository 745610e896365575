// Every error a merchant can see, with its stable code (docs/api.md "Errors"). The HTTP status of
// each tag lives in one table in http/edge/error-status.ts; the domain knows nothing of HTTP.
export const ERROR_CODES = {
  INVALID_CREDENTIALS: '1000',
  MERCHANT_DISABLED: '1001',
  RATE_LIMITED: '1002',
  MALFORMED_REQUEST: '2000',
  MISSING_FIELD: '2001',
  INVALID_FIELD: '2002',
  AMOUNT_TOO_LOW: '2003',
  AMOUNT_TOO_HIGH: '2003',
  UNSUPPORTED_PAYMENT_METHOD: '2004',
  UNSUPPORTED_CURRENCY: '2004',
  DUPLICATE_TRACKID: '3000',
  NOT_FOUND: '3001',
  INVALID_STATE: '3002',
  // Refunds (docs/api.md "Refund"). A reused Idempotency-Key with different content shares 3000
  // with DUPLICATE_TRACKID.
  IDEMPOTENCY_KEY_REUSED: '3000',
  REFUND_NOT_ALLOWED: '3003',
  REFUND_EXCEEDS_AVAILABLE: '3004',
  INSUFFICIENT_BALANCE: '3005',
  INTERNAL_ERROR: '5000',
  SERVICE_UNAVAILABLE: '5003',
} as const;

export type ErrorTag = keyof typeof ERROR_CODES;

/**
 * Why a MALFORMED_REQUEST happened; the HTTP layer picks 400, 413, 415 (body), 408 (sent too
 * slowly) or 431 (headers too large) from it.
 */
export type MalformedKind = 'syntax' | 'not_object' | 'too_large' | 'content_type' | 'timeout' | 'headers_too_large';

export class GatewayError extends Error {
  readonly tag: ErrorTag;
  readonly code: string;
  readonly malformed: MalformedKind | undefined;

  constructor(tag: ErrorTag, message: string, malformed?: MalformedKind) {
    super(message);
    this.name = 'GatewayError';
    this.tag = tag;
    this.code = ERROR_CODES[tag];
    this.malformed = malformed;
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

export const missingField = (field: string): GatewayError =>
  new GatewayError('MISSING_FIELD', `The field '${field}' is required and must not be empty.`);

export const invalidField = (field: string, rule: string): GatewayError =>
  new GatewayError('INVALID_FIELD', `The field '${field}' is invalid: ${rule}.`);
