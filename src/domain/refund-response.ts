// What POST /transaction/refund answers and what the refund notification says. Pure. Their shapes
// are declared once, as schemas: domain/wire/refund.ts and domain/wire/notifications.ts.
import type { GatewayError } from './errors.ts';
import { currencyExponent, formatMinor } from './money.ts';
import { echo } from './responses.ts';
import type { RefundNotification } from './wire/notifications.ts';
import type { RefundResponse } from './wire/refund.ts';

/** A refund as stored (store/repos/refunds.repo.ts), with what the answer needs of its payment. */
export type RefundView = {
  id: string;
  merchantId: string;
  transactionId: string;
  amountMinor: bigint;
  currency: string;
  /** Total refunded on the payment right after this refund. */
  refundedAfterMinor: bigint;
  reason: string | null;
  reference: string | null;
  createdAt: number;
};

const money = (minor: bigint, currency: string) => formatMinor(minor, currencyExponent(currency));

/** What the answer needs of the refunded payment: neither changes after it is captured. */
export type RefundedPayment = { amountMinor: bigint; trackid: string };

/**
 * The success answer, built from the stored refund and its payment's fixed fields only, so a
 * replay answers byte for byte what the original did (`refunded_amount`/`refundable_amount` as
 * right after THIS refund). `trackid` echoes the request's `trackid` as it always has (merchants'
 * clients read it back; the WooCommerce plugin sends the billing e-mail there), and is the
 * payment's own when the request named none; `reference` is the request's `trackid` (docs/api.md).
 */
export function refundAccepted(r: RefundView, payment: RefundedPayment): RefundResponse {
  return {
    type: 'valid',
    result: 'Success',
    responsecode: '0',
    merchantid: r.merchantId,
    trackid: r.reference ?? payment.trackid,
    transactionid: r.transactionId,
    refundid: r.id,
    reference: r.reference,
    bill_amount: money(r.amountMinor, r.currency),
    bill_currencycode: r.currency,
    refunded_amount: money(r.refundedAfterMinor, r.currency),
    refundable_amount: money(payment.amountMinor - r.refundedAfterMinor, r.currency),
    error_code_tag: null,
    error_text: null,
    created_at: new Date(r.createdAt).toISOString(),
  };
}

export function refundError(error: GatewayError, body: Record<string, unknown> | undefined): RefundResponse {
  return {
    type: 'error',
    result: 'Not Successful',
    responsecode: error.code,
    merchantid: echo(body?.merchantid),
    trackid: echo(body?.trackid),
    transactionid: echo(body?.transactionid) ?? echo(body?.tranid),
    refundid: null,
    reference: echo(body?.trackid),
    bill_amount: null,
    bill_currencycode: null,
    refunded_amount: null,
    refundable_amount: null,
    error_code_tag: error.tag,
    error_text: error.message,
    created_at: null,
  };
}

/**
 * `result` and `responsecode` of a refund notification. Deliberately neither a payment result
 * (`CAPTURED`/`0`, `Not Successful`/`6`) nor `Processing`/`9`, and numeric so that a PHP
 * handler's loose `$code == 0` is false too: a handler written for payment results only can
 * never take a refund for a capture or a failure. `event_type` says what it is.
 */
export const REFUND_NOTIFICATION_RESULT = 'REFUNDED';
export const REFUND_NOTIFICATION_CODE = '10';

export type RefundNotificationInput = RefundView & {
  eventId: string;
  /** Of the payment: the shop's order reference and the token it got at initiation. */
  paymentTrackid: string;
  paymentToken: string;
  capturedMinor: bigint;
};

/** Stored once in the outbox, so every retry sends the same bytes. docs/notifications.md lists every field. */
export function refundNotificationBody(n: RefundNotificationInput): string {
  const body: RefundNotification = {
    type: 'valid',
    event_type: 'refund',
    result: REFUND_NOTIFICATION_RESULT,
    responsecode: REFUND_NOTIFICATION_CODE,
    trackid: n.paymentTrackid,
    merchantid: n.merchantId,
    transactionid: n.transactionId,
    token: n.paymentToken,
    refundid: n.id,
    bill_amount: money(n.amountMinor, n.currency),
    bill_currencycode: n.currency,
    payment_amount: money(n.capturedMinor, n.currency),
    refunded_amount: money(n.refundedAfterMinor, n.currency),
    refundable_amount: money(n.capturedMinor - n.refundedAfterMinor, n.currency),
    reason: n.reason,
    reference: n.reference,
    error_code_tag: null,
    error_text: null,
    event_id: n.eventId,
    created_at: new Date(n.createdAt).toISOString(),
  };
  return JSON.stringify(body);
}
