// The processor connector's port: where a live payment's money moves (the sandbox moves none).
// Implementations live in connectors/ (docs/architecture.md "Connectors").
//
// Refunds go through `refund`, called by app/refund-payment.ts after every check that needs no
// money movement (payment SUCCESS, amount still refundable, merchant balance covers it) and
// BEFORE the refund is committed, outside any database transaction. A live connector must treat
// `refundId` as its idempotency key at the processor: if the commit afterwards fails, the
// merchant's retry (same idempotency key → same refundId) must not send the money twice.

export type RefundRequest = {
  /** Our refund id, stable across the merchant's retries of the same request: the processor's idempotency key. */
  refundId: string;
  transactionId: string;
  merchantId: string;
  amountMinor: bigint;
  currency: string;
  reason: string | null;
};

/** The processor accepted the refund; `reference` is its own id for it, if it has one. */
export type RefundAccepted = { reference: string | null };

export type ProcessorConnector = {
  readonly name: string;
  /** True only for connectors that move real money. */
  readonly live: boolean;
  /**
   * Sends a refund to the processor; resolves when accepted, throws (a GatewayError to show the merchant) when
   * refused.
   */
  refund(request: RefundRequest): Promise<RefundAccepted>;
};
