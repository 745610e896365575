// The payment transaction, as the use cases see it (docs/api.md "Lifecycle"). Repositories map
// their rows to this shape; nothing else declares it.
import type { TransactionStatus } from './lifecycle.ts';

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
};

/** One state change of a transaction, kept in order per transaction. */
export type Transition = {
  transactionId: string;
  fromStatus: TransactionStatus;
  toStatus: TransactionStatus;
  cause: string;
  errorCodeTag: string | null;
  at: number;
};
