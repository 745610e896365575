import type { PayerMismatchPolicy } from './payer-check.ts';

// A merchant account as the use cases see it (docs/api.md "Credentials", docs/ledger.md for
// the fee rate and payout account). Repositories map their rows to this shape.

/** Secrets are never held in clear: the API password as a keyed hash, webhook secrets sealed. */
export type MerchantRecord = {
  id: string;
  name: string;
  passwordHash: string;
  webhookSecretSealed: string;
  previousWebhookSecretSealed: string | null;
  previousWebhookSecretExpiresAt: number | null;
  payoutCurrency: string;
  payoutAccount: string;
  feeRatePpm: bigint;
  status: 'active' | 'disabled';
  /** What a `mismatched` payer check does to its payments (docs/operations.md "Payer check"). */
  payerMismatch: PayerMismatchPolicy;
  createdAt: number;
  updatedAt: number;
};
