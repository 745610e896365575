// A refund of (part of) a successful payment (docs/api.md "Refund"). Repositories map their
// rows to this shape.

/** One accepted refund; `refundedAfterMinor` is the payment's refunded total including it. */
export type RefundRecord = {
  id: string;
  merchantId: string;
  transactionId: string;
  idempotencyKey: string;
  requestHash: string;
  amountMinor: bigint;
  currency: string;
  refundedAfterMinor: bigint;
  reason: string | null;
  reference: string | null;
  /** The connector that refunded it at the processor, or BANK_TRANSFER for a refund paid by bank transfer. */
  processor: string;
  /** The processor's id of the refund; for BANK_TRANSFER, the transfer's reference. */
  processorReference: string | null;
  /**
   * Who sent a BANK_TRANSFER refund's transfer (null for a refund at the processor): the gateway's
   * operator, from the merchant's funds the gateway holds, or the merchant from its own account.
   * It decides the ledger entry (refundCounterpart).
   */
  transferPaidBy: TransferPaidBy | null;
  createdAt: number;
};

/**
 * How long a refund answers again to a request without an idempotency key (docs/api.md "Refund"):
 * its key is derived from the request's content, and the same content 24 hours or more after that
 * refund is a new refund. A key the merchant gives never expires.
 */
export const DERIVED_REFUND_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** True while a refund stored under a derived key still answers a request with the same content. */
export function derivedKeyStillHolds(refund: Pick<RefundRecord, 'createdAt'>, now: number): boolean {
  return now - refund.createdAt < DERIVED_REFUND_KEY_LIFETIME_MS;
}

/**
 * The `processor` of a refund the merchant paid by bank transfer and recorded (docs/api.md "Refunds
 * the processor cannot make"); its `processorReference` is the transfer's reference. No connector
 * is named so: connector names are the `PROCESSOR_CONNECTOR` values.
 */
export const BANK_TRANSFER = 'bank_transfer';

/** True for a refund the merchant paid by bank transfer and recorded, false for one made at the processor. */
export function paidByTransfer(refund: Pick<RefundRecord, 'processor'>): boolean {
  return refund.processor === BANK_TRANSFER;
}

/**
 * Who paid a refund by bank transfer (docs/ledger.md "Postings of each event"): `gateway` — the
 * operator sent it out of the money the gateway holds for the merchant, so the merchant's payout
 * balance drops; `merchant` — the merchant sent it from its own bank account, and the gateway's
 * books do not move.
 */
export const TRANSFER_PAYERS = ['gateway', 'merchant'] as const;
export type TransferPaidBy = (typeof TRANSFER_PAYERS)[number];

/**
 * The account a refund's entry credits against the merchant's payout debit, or null when the
 * refund posts no entry at all:
 * - at the processor: clearing, since the processor sends the money back out of what it settles
 *   (clearing = −(payments) + (processor refunds) stays reconcilable);
 * - by bank transfer the gateway paid: the operator adjustment account, the other side of money
 *   that leaves outside the processor, as an operator debit's does; the processor's settlement
 *   still holds the whole payment, and so does clearing;
 * - by bank transfer the merchant paid: nothing (the money never was in the gateway's hands).
 */
export function refundCounterpart(
  refund: Pick<RefundRecord, 'processor' | 'transferPaidBy'>,
): 'gateway_clearing' | 'operator_adjustment' | null {
  if (!paidByTransfer(refund)) return 'gateway_clearing';
  return refund.transferPaidBy === 'merchant' ? null : 'operator_adjustment';
}
