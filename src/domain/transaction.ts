// The payment transaction, as the use cases see it (docs/api.md "Lifecycle"). Repositories map
// their rows to this shape; nothing else declares it.
import type { TransactionStatus } from './lifecycle.ts';
import type { PayerCheck } from './payer-check.ts';

/** One payment: what the merchant sent at initiation, its state and its refunded total. */
export type TransactionRecord = {
  id: string;
  merchantId: string;
  trackid: string;
  requestHash: string;
  token: string;
  redirectId: string;
  status: TransactionStatus;
  errorCodeTag: string | null;
  errorText: string | null;
  amountMinor: bigint;
  currency: string;
  paymentMethod: string;
  billCountry: string;
  billCustomerIp: string;
  billEmail: string;
  returnUrl: string;
  serverUrl: string;
  payerAccountNo: string;
  payerAccountName: string;
  payerBankCode: string;
  productdesc: string | null;
  lang: string | null;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
  /** Where a failed, cancelled or expired payment sends the customer; null: returnUrl. */
  returnUrlOnFailure: string | null;
  /** Total refunded so far (0 when none). */
  refundedMinor: bigint;
  /**
   * The payer check's verdict (domain/payer-check.ts), null until a processor reported the
   * payment paid. PROCESSING with a verdict: held for an operator (docs/console.md "Needs attention").
   */
  payerCheck: PayerCheck | null;
};

/** A payment a mismatched payer check holds for an operator: only the operator's decision ends it. */
export function isHeldForPayer(t: Pick<TransactionRecord, 'status' | 'payerCheck'>): boolean {
  return t.status === 'PROCESSING' && t.payerCheck !== null;
}

/** One state change of a transaction, kept in order per transaction. */
export type Transition = {
  transactionId: string;
  fromStatus: TransactionStatus;
  toStatus: TransactionStatus;
  cause: string;
  errorCodeTag: string | null;
  at: number;
};
