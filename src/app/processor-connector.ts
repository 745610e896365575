// The processor connector is where a live debit goes to the payer's bank. Only the sandbox
// connector ships: with it, the outcome of a confirmation is the contract's amount rule
// (domain/lifecycle.ts), decided inside the `complete` use case. A bank connector would send
// the debit after initiation and report the bank's answer by calling `complete` (cause
// `confirm`, with the bank's outcome) — outside any database transaction — and declares
// `live: true`. Live mode refuses to start until such a connector is registered here.
//
// Refunds (issue 9) go through `refund`, called by app/refund-payment.ts after every check that
// needs no money movement (payment SUCCESS, amount still refundable, merchant balance covers it)
// and BEFORE the refund is committed, outside any database transaction. A live connector must
// treat `refundId` as its idempotency key at the processor: if the commit afterwards fails, the
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
  /** Sends a refund to the processor; resolves when accepted, throws (a GatewayError to show the merchant) when refused. */
  refund(request: RefundRequest): Promise<RefundAccepted>;
};

/** Sandbox: no money moves, so every refund that passed the gateway's own checks succeeds. */
export const sandboxConnector: ProcessorConnector = {
  name: 'sandbox',
  live: false,
  refund: async () => ({ reference: null }),
};

const CONNECTORS: Record<string, ProcessorConnector> = { sandbox: sandboxConnector };

export function connectorFor(mode: 'sandbox' | 'live', name = 'sandbox'): ProcessorConnector {
  const connector = CONNECTORS[name];
  if (!connector) throw new Error(`Unknown processor connector '${name}'.`);
  if (mode === 'live' && !connector.live) {
    throw new Error(
      `GATEWAY_MODE=live needs a live processor connector, but this build ships only the '${connector.name}' connector. ` +
        'Implement ProcessorConnector (src/app/processor-connector.ts) for your bank, or run in sandbox mode.',
    );
  }
  return connector;
}
