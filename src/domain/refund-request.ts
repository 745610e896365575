// The rules of POST /transaction/refund (docs/api.md "Refund"): turns an untrusted JSON object
// (and the Idempotency-Key header) into a normalised refund request, or throws the first rule it
// breaks. Whether the payment exists, is SUCCESS, is in this currency and still has this much
// to refund is the use case's business (app/refund-payment.ts): it needs the store.
import { invalidField, missingField } from './errors.ts';
import { hasControlCharacters, NO_CONTROL_CHARACTERS } from './control-characters.ts';
import { parseAmountField } from './initiation-request.ts';
import { CURRENCY_CODE } from './money.ts';

export type NormalisedRefund = {
  transactionId: string;
  currency: string;
  amountMinor: bigint;
  /** The merchant's free-text reference (request `trackid`; WooCommerce sends the billing e-mail). */
  reference: string | null;
  reason: string | null;
  /** `Idempotency-Key` header or body `refund_reference`; null: derived from the content. */
  idempotencyKey: string | null;
};

type Body = Record<string, unknown>;

const MAX_ID = 64;
const MAX_REFERENCE = 254;
const MAX_REASON = 255;
const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/**
 * Optional text: absent, null or blank → null; otherwise a string without control characters, at most `max`
 * characters.
 */
function optionalText(body: Body, field: string, max: number): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidField(field, 'it must be a string');
  if (hasControlCharacters(value)) throw invalidField(field, NO_CONTROL_CHARACTERS);
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if ([...trimmed].length > max) throw invalidField(field, `it must be at most ${max} characters`);
  return trimmed;
}

function transactionReference(body: Body): string {
  const transactionid = optionalText(body, 'transactionid', MAX_ID);
  const tranid = optionalText(body, 'tranid', MAX_ID);
  if (transactionid !== null && tranid !== null && transactionid !== tranid) {
    throw invalidField('tranid', 'it is an alias of transactionid and must equal it when both are sent');
  }
  const id = transactionid ?? tranid;
  if (id === null) throw missingField('transactionid');
  return id;
}

function idempotencyKey(body: Body, header: string | undefined): string | null {
  let fromHeader: string | null = null;
  if (header !== undefined && header.trim() !== '') {
    fromHeader = header.trim();
    if (!IDEMPOTENCY_KEY.test(fromHeader))
      throw invalidField('Idempotency-Key', 'it must be 1 to 255 printable ASCII characters');
  }
  const fromBody = optionalText(body, 'refund_reference', 255);
  if (fromBody !== null && !IDEMPOTENCY_KEY.test(fromBody))
    throw invalidField('refund_reference', 'it must be 1 to 255 printable ASCII characters');
  if (fromHeader !== null && fromBody !== null && fromHeader !== fromBody) {
    throw invalidField('refund_reference', 'it must equal the Idempotency-Key header when both are sent');
  }
  return fromHeader ?? fromBody;
}

export function validateRefund(body: Body, idempotencyKeyHeader?: string): NormalisedRefund {
  const transactionId = transactionReference(body);
  const currencyInput = body.bill_currencycode;
  if (
    currencyInput === undefined ||
    currencyInput === null ||
    (typeof currencyInput === 'string' && currencyInput.trim() === '')
  )
    throw missingField('bill_currencycode');
  const currency = typeof currencyInput === 'string' ? currencyInput.trim().toUpperCase() : '';
  if (!CURRENCY_CODE.test(currency))
    throw invalidField('bill_currencycode', 'it must be a three-letter currency code such as THB');
  const amountMinor = refundAmount(body, 'bill_amount', currency);
  return {
    transactionId,
    currency,
    amountMinor,
    reference: optionalText(body, 'trackid', MAX_REFERENCE),
    reason: refundReason(body, 'reason'),
    idempotencyKey: idempotencyKey(body, idempotencyKeyHeader),
  };
}

/**
 * A refund's amount in `currency`, from `body[field]`: parsed exactly like the initiation amount
 * (at most the currency's digits), more than 0. A recorded bank transfer (app/record-transfer-refund.ts)
 * reads its amount with this rule too, under its own field name.
 */
export function refundAmount(body: Body, field: string, currency: string): bigint {
  const amountMinor = parseAmountField(body, field, currency);
  if (amountMinor <= 0n) throw invalidField(field, 'a refund must be more than 0');
  return amountMinor;
}

/** A refund's optional reason: at most 255 characters, no control characters, blank → null. */
export function refundReason(body: Body, field: string): string | null {
  return optionalText(body, field, MAX_REASON);
}
