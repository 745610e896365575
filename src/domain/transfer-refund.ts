// Refunds paid outside the API (docs/api.md "Refunds the processor cannot make"): when the
// processor cannot refund a payment (a connector whose capabilities.refunds is 'none', KBank after
// its void window), the payer is paid back by bank transfer — by the merchant, or by the gateway's
// operator from the merchant's funds — and that transfer is recorded here; the refund then goes
// through the refund use case with the transfer's reference in place of the processor's step
// (app/record-transfer-refund.ts). Pure: the rules of the recorded reference and of who paid, and
// the one sentence every such refusal ends with.
import { GatewayError, invalidField, missingField } from './errors.ts';
import { hasControlCharacters, NO_CONTROL_CHARACTERS } from './control-characters.ts';
import { TRANSFER_PAYERS, type TransferPaidBy } from './refund.ts';

/**
 * Where a refund the processor refuses can still be made. Every refusal that means "the processor
 * cannot refund this" ends with it, whichever connector refused (processorCannotRefund).
 */
export const REFUND_BY_TRANSFER_HINT =
  'Refund it by bank transfer and record that transfer in the console (the payment page) ' +
  'or with `gateway refund record`.';

/** REFUND_NOT_ALLOWED for a refund the processor cannot make: why, then where it can be made instead. */
export function processorCannotRefund(why: string): GatewayError {
  return new GatewayError('REFUND_NOT_ALLOWED', `${why} ${REFUND_BY_TRANSFER_HINT}`);
}

/** The field a transfer reference is named by, in errors of the console, the CLI and the use case. */
export const TRANSFER_REFERENCE_FIELD = 'transfer_reference';
export const MAX_TRANSFER_REFERENCE = 64;
/**
 * What a bank's transfer reference looks like: letters, digits and `-` `_` `.` `/`, starting and
 * ending with a letter or digit. Thai banks' slips show references such as `FT24015ABC123` or
 * `20260105-000123`; anything wider (spaces, quotes) would only be a typo or pasted text.
 */
const TRANSFER_REFERENCE = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/**
 * The transfer's reference as stored: trimmed and upper-cased, so `ft123` and `FT123 ` are the
 * same transfer (recording it again answers the first refund). Required.
 */
export function validateTransferReference(value: unknown): string {
  if (value === undefined || value === null) throw missingField(TRANSFER_REFERENCE_FIELD);
  if (typeof value !== 'string') throw invalidField(TRANSFER_REFERENCE_FIELD, 'it must be a string');
  if (hasControlCharacters(value)) throw invalidField(TRANSFER_REFERENCE_FIELD, NO_CONTROL_CHARACTERS);
  const trimmed = value.trim();
  if (trimmed === '') throw missingField(TRANSFER_REFERENCE_FIELD);
  if (trimmed.length > MAX_TRANSFER_REFERENCE)
    throw invalidField(TRANSFER_REFERENCE_FIELD, `it must be at most ${MAX_TRANSFER_REFERENCE} characters`);
  if (!TRANSFER_REFERENCE.test(trimmed))
    throw invalidField(
      TRANSFER_REFERENCE_FIELD,
      "it must be the bank transfer's reference: letters, digits and - _ . / only, " +
        'starting and ending with a letter or digit',
    );
  return trimmed.toUpperCase();
}

/** The field naming who sent the transfer, in errors of the console, the CLI and the use case. */
export const PAID_BY_FIELD = 'paid_by';

/**
 * Who sent the transfer (domain/refund.ts TransferPaidBy): `gateway` or `merchant`. Required, with
 * no default: it decides whether the merchant's payout balance drops (docs/ledger.md), and only the
 * person recording the transfer knows whose account it left.
 */
export function validateTransferPaidBy(value: unknown): TransferPaidBy {
  if (value === undefined || value === null || value === '') throw missingField(PAID_BY_FIELD);
  const known = TRANSFER_PAYERS.find((p) => p === value);
  if (!known)
    throw invalidField(
      PAID_BY_FIELD,
      "it must be 'gateway' (the gateway's operator sent the transfer from the merchant's funds it holds) " +
        "or 'merchant' (the merchant sent it from its own account)",
    );
  return known;
}
