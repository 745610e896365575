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
  processor: string;
  processorReference: string | null;
  createdAt: number;
};
