// The web console's ports: accounts, sessions and the audit log, and its scoped reads
// (implemented by store/; docs/console.md).
import type { AuditEntry, ConsoleRole, OperatorRecord, SessionRecord } from '../../domain/console-account.ts';
import type { TransactionStatus } from '../../domain/lifecycle.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';

export type AuditCursor = { at: number; id: string };

/** Console accounts, sessions and the audit log. */
export interface ConsoleAccountStore {
  insertOperator(operator: OperatorRecord): Promise<boolean>;
  findOperatorByUsername(username: string): Promise<OperatorRecord | undefined>;
  findOperatorById(id: string): Promise<OperatorRecord | undefined>;
  listOperators(): Promise<OperatorRecord[]>;
  setOperatorStatus(username: string, status: 'active' | 'disabled', now: number): Promise<OperatorRecord | undefined>;
  setOperatorPassword(username: string, passwordHash: string, now: number): Promise<OperatorRecord | undefined>;
  /** Records a used TOTP step; false when it (or a later one) was used already. */
  useTotpStep(operatorId: string, step: bigint): Promise<boolean>;
  setMerchantPassword(merchantId: string, passwordHash: string, now: number): Promise<void>;
  merchantPasswordHash(merchantId: string): Promise<string | undefined>;
  merchantsWithConsolePassword(): Promise<Set<string>>;
  insertSession(session: SessionRecord): Promise<void>;
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, now: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  deleteSessionsOf(role: ConsoleRole, subjectId: string): Promise<void>;
  deleteStaleSessions(idleBefore: number, createdBefore: number): Promise<void>;
  insertAudit(entry: AuditEntry): Promise<void>;
  listAudit(options: { limit: number; before?: AuditCursor; action?: string }): Promise<AuditEntry[]>;
}

/** A console payment search, newest first; `merchantId` scopes it (a merchant sees only its own). */
export type PaymentSearch = {
  /** Set for a merchant's console: only this merchant's payments. */
  merchantId?: string;
  transactionId?: string;
  trackid?: string;
  /** Compared case-insensitively. */
  email?: string;
  amountMinor?: bigint;
  status?: TransactionStatus;
  /** created_at >= from, < to (Unix ms). */
  from?: number;
  to?: number;
  /** Keyset: rows strictly older than this (created_at, id). */
  before?: { createdAt: number; id: string };
  limit: number;
};

/** A posting of one account's chain with its entry's kind, payment and reason (console ledger pages). */
export type PostingRow = {
  entryId: string;
  entryKind: string;
  /** The payment: its own entry's, or for a refund's entry the refunded payment. */
  transactionId: string | null;
  reason: string | null;
  /** A refund's entry: the refund and the reason given with it. */
  refundId: string | null;
  refundReason: string | null;
  accountId: string;
  currency: string;
  amountMinor: bigint;
  accountSeq: bigint;
  balanceAfterMinor: bigint;
  createdAt: number;
};

/** A payment as the payments list shows it: what a search reads, and no more. */
export type PaymentListItem = Pick<
  TransactionRecord,
  'id' | 'merchantId' | 'trackid' | 'status' | 'amountMinor' | 'currency' | 'billEmail' | 'createdAt' | 'refundedMinor'
>;

/** The console's reads, each scoped by merchant where a merchant may ask. */
export interface ConsoleReads {
  search(search: PaymentSearch): Promise<PaymentListItem[]>;
  /** One payment, scoped to a merchant when `merchantId` is given. */
  find(id: string, merchantId: string | undefined): Promise<TransactionRecord | undefined>;
  /**
   * One account's postings, keyset-paged on its chain: newest first before `beforeSeq`, oldest first after
   * `afterSeq`.
   */
  postings(accountId: string, options: { limit: number; beforeSeq?: bigint; afterSeq?: bigint }): Promise<PostingRow[]>;
}
