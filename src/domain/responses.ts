// Response bodies of the merchant API (docs/api.md: initiation, status, payout balance). Pure:
// values in, plain objects out. Their shapes are declared once, as schemas, in domain/wire/.
import type { GatewayError } from './errors.ts';
import { RESPONSE_CODE, RESULT_TEXT } from './lifecycle.ts';
import type { TransactionRecord } from './transaction.ts';
import { currencyExponent, formatMinor } from './money.ts';
import type { BalanceResponse } from './wire/balance.ts';
import type { InitiationResponse, StatusResponse } from './wire/payment-responses.ts';

/** The fields of a transaction its answers show. */
type TransactionView = Pick<
  TransactionRecord,
  | 'id'
  | 'merchantId'
  | 'trackid'
  | 'token'
  | 'redirectId'
  | 'status'
  | 'errorCodeTag'
  | 'errorText'
  | 'amountMinor'
  | 'currency'
  | 'createdAt'
  | 'completedAt'
  | 'refundedMinor'
  | 'payerCheck'
>;

export function redirectUrl(publicBaseUrl: string, redirectId: string): string {
  return `${publicBaseUrl}/transaction/Redirect?ID=${encodeURIComponent(redirectId)}`;
}

/** What POST /transaction/s2s answers on success — and again, byte for byte, on a replay. */
export function initiationAccepted(t: TransactionView, publicBaseUrl: string): InitiationResponse {
  return {
    type: 'valid',
    result: RESULT_TEXT.PROCESSING,
    responsecode: RESPONSE_CODE.PROCESSING,
    trackid: t.trackid,
    merchantid: t.merchantId,
    redirectUrl: redirectUrl(publicBaseUrl, t.redirectId),
    token: t.token,
    transactionid: t.id,
    error_code_tag: null,
    error_text: null,
  };
}

export function statusOf(t: TransactionView, publicBaseUrl: string): StatusResponse {
  const final = t.status !== 'PROCESSING';
  return {
    type: 'valid',
    result: RESULT_TEXT[t.status],
    responsecode: RESPONSE_CODE[t.status],
    trackid: t.trackid,
    merchantid: t.merchantId,
    redirectUrl: final ? null : redirectUrl(publicBaseUrl, t.redirectId),
    token: t.token,
    transactionid: t.id,
    error_code_tag: t.errorCodeTag,
    error_text: t.errorText,
    bill_amount: formatMinor(t.amountMinor, currencyExponent(t.currency)),
    bill_currencycode: t.currency,
    created_at: new Date(t.createdAt).toISOString(),
    completed_at: t.completedAt === null ? null : new Date(t.completedAt).toISOString(),
    refunded_amount: formatMinor(t.refundedMinor, currencyExponent(t.currency)),
    ...(t.payerCheck !== null && { payer_check: t.payerCheck }),
  };
}

/**
 * Echo a request value when present (docs/api.md, "Errors"): text as sent (bounded), a number or
 * boolean as its text, else null.
 */
export function echo(value: unknown): string | null {
  if (typeof value === 'string') return value.slice(0, 256);
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return null;
}

export function initiationError(error: GatewayError, body: Record<string, unknown> | undefined): InitiationResponse {
  return {
    type: 'error',
    result: 'Not Successful',
    responsecode: error.code,
    trackid: echo(body?.trackid),
    merchantid: echo(body?.merchantid),
    redirectUrl: null,
    token: null,
    transactionid: null,
    error_code_tag: error.tag,
    error_text: error.message,
  };
}

export function statusError(error: GatewayError, body: Record<string, unknown> | undefined): StatusResponse {
  return {
    ...initiationError(error, body),
    transactionid: echo(body?.transactionid),
    bill_amount: null,
    bill_currencycode: null,
    created_at: null,
    completed_at: null,
    refunded_amount: null,
  };
}

export function balanceError(error: GatewayError, body: Record<string, unknown> | undefined): BalanceResponse {
  return {
    type: 'error',
    result: 'Failed',
    responsecode: error.code,
    merchantid: echo(body?.merchantid),
    token: null,
    error_code_tag: error.tag,
    error_text: error.message,
    description: error.message,
    balanceAmt: null,
    currency: null,
    maskedcard: null,
  };
}
