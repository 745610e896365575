// The ports: what the use cases, the delivery worker and the HTTP edge need from the store,
// declared here and implemented by store/ (docs/architecture.md "Ports"). Each is narrow and
// speaks in domain entities; none says which database answers it, how writes are batched or
// on which thread they commit. `openStore()` (store/open-store.ts) hands out a `Store`: these
// ports and nothing else.
import type { AuditEntry, ConsoleRole, OperatorRecord, SessionRecord } from '../domain/console-account.ts';
import type { CompletionInput, CompletionPlan } from '../domain/completion.ts';
import type {
  AccountRecord,
  AccountRef,
  AccountState,
  EntryWithPostings,
  JournalEntry,
  PlannedPosting,
  PostingRecord,
} from '../domain/ledger.ts';
import type { TransactionStatus } from '../domain/lifecycle.ts';
import type { MerchantRecord } from '../domain/merchant.ts';
import type {
  AttemptRecord,
  DeliveryAttempt,
  NewOutboxEvent,
  OutboxEvent,
  OutboxStatus,
} from '../domain/outbox-event.ts';
import type { RefundRecord } from '../domain/refund.ts';
import type { TransactionRecord, Transition } from '../domain/transaction.ts';

export type StoreKind = 'sqlite' | 'postgres';

export type AuditCursor = { at: number; id: string };

/** Payments: the initiation's durable write, the request path's lookups, the expiry sweep. */
export interface PaymentStore {
  /**
   * Inserts unless (merchant, trackid) exists; either way resolves with the stored row, only
   * after it is durably committed. Concurrent identical requests produce one row.
   */
  insertOrGet(record: TransactionRecord): Promise<{ inserted: boolean; row: TransactionRecord }>;
  findById(merchantId: string, id: string): Promise<TransactionRecord | undefined>;
  findByTrackid(merchantId: string, trackid: string): Promise<TransactionRecord | undefined>;
  findByRedirectId(redirectId: string): Promise<TransactionRecord | undefined>;
  transitions(transactionId: string): Promise<Transition[]>;
  /** PROCESSING transactions whose deadline has passed, oldest first. */
  findExpired(now: number, limit: number): Promise<string[]>;
}

/** A completion: the row to plan it from, and the atomic write of the plan. */
export interface CompletionStore {
  /** The transaction with its merchant's fee rate as of now; undefined when unknown. */
  readForCompletion(transactionId: string): Promise<CompletionInput | undefined>;
  /**
   * Writes the final state, its transition, the outbox event and (on success) the journal entry,
   * all or nothing, and only if the transaction is still PROCESSING: resolves false when
   * someone else finalised it first (then nothing was written). Durable when it resolves.
   */
  write(plan: CompletionPlan): Promise<boolean>;
}

export interface MerchantStore {
  /** False when the id is taken. */
  insert(merchant: MerchantRecord): Promise<boolean>;
  findById(id: string): Promise<MerchantRecord | undefined>;
  list(): Promise<MerchantRecord[]>;
  count(): Promise<number>;
  /** Changes whenever any merchant row changes (the merchant directory polls it). */
  changeMarker(): Promise<string>;
  update(
    id: string,
    changes: Partial<
      Pick<
        MerchantRecord,
        | 'passwordHash'
        | 'webhookSecretSealed'
        | 'previousWebhookSecretSealed'
        | 'previousWebhookSecretExpiresAt'
        | 'status'
        | 'feeRatePpm'
      >
    >,
    updatedAt: number,
  ): Promise<boolean>;
}

/** Ledger reads, and the whole-ledger checks behind `ledger verify`. */
export interface LedgerReads {
  balance(ref: AccountRef): Promise<bigint>;
  findEntryByIdempotencyKey(key: string): Promise<EntryWithPostings | undefined>;
  findEntryByTransaction(transactionId: string): Promise<EntryWithPostings | undefined>;
  recentEntries(merchantId: string, limit: number): Promise<EntryWithPostings[]>;
  postingsOf(entryIds: string[]): Promise<PostingRecord[]>;
  accountsOf(merchantId: string | null): Promise<AccountRecord[]>;
  countEntries(filter?: { merchantId?: string }): Promise<number>;
  unbalancedEntries(): Promise<Array<{ entryId: string; currency: string; sumMinor: bigint }>>;
  malformedEntries(): Promise<string[]>;
  balanceMismatches(): Promise<Array<{ accountId: string; storedMinor: bigint; postedMinor: bigint }>>;
  negativePayoutAccounts(): Promise<string[]>;
}

export type RefundListOptions = {
  merchantId?: string;
  transactionId?: string;
  limit?: number;
  before?: { createdAt: number; id: string };
};

export interface RefundReads {
  findByKey(merchantId: string, idempotencyKey: string): Promise<RefundRecord | undefined>;
  findById(id: string): Promise<RefundRecord | undefined>;
  ofTransaction(transactionId: string): Promise<RefundRecord[]>;
  list(options?: RefundListOptions): Promise<RefundRecord[]>;
}

/** Where a newest-first page ends: the last row's (created_at, id). */
export type ListCursor = { createdAt: number; id: string };
export type ListOptions = { merchantId?: string; status?: OutboxStatus; limit?: number; before?: ListCursor };

/** Notifications as operators see them, and an operator's resend. */
export interface OutboxReads {
  findById(id: string): Promise<OutboxEvent | undefined>;
  findByTransaction(transactionId: string): Promise<OutboxEvent | undefined>;
  findByRefund(refundId: string): Promise<OutboxEvent | undefined>;
  list(options?: ListOptions): Promise<OutboxEvent[]>;
  attempts(eventId: string): Promise<DeliveryAttempt[]>;
  /** The payment's result notification and whether an attempt of it is recorded (hosted page's wait). */
  resultEventAttempted(transactionId: string): Promise<{ eventId: string; attempted: boolean } | undefined>;
  /**
   * Starts a new attempt series of the event, due now; undefined when unknown. Running
   * instances' delivery workers are told (DeliveryStore.wakeups).
   */
  resend(id: string, now: number): Promise<number | undefined>;
}

export type FairClaimOptions = {
  owner: string;
  /** Due when next_attempt_at <= now (the gateway's clock, like the rest of the lifecycle). */
  now: number;
  leaseMs: number;
  /** Events to take at most. */
  limit: number;
  /** How many events of this origin may be leased now. */
  allowance: (origin: string) => number;
  /** Origins are visited in order starting after this one, wrapping around (round robin). */
  after?: string;
  /** Only these origins, in this order (a refill of origins the caller knows to have events left). */
  origins?: readonly string[];
};

export type FairClaim = {
  /** Leased to the owner, at most `allowance(origin)` per origin, oldest due first per origin. */
  events: OutboxEvent[];
  /** The last origin planned; pass it as `after` next time so every origin gets its turn. */
  lastOrigin: string | undefined;
  /** Due origins this claim may have left events of: skipped (no allowance) or given their whole share. */
  leftBehind: string[];
  /** Due origins whose due, free events this claim took all of. */
  exhausted: string[];
  /** It stopped before looking at every due origin (`limit` ran out, or the per-claim origin cap). */
  truncated: boolean;
};

/** Where wake-ups report trouble (a pino logger fits). */
export type WakeupLog = { warn(details: object, message: string): void; debug(details: object, message: string): void };

/**
 * Tells the delivery workers of other instances that notifications became due. Only a hint:
 * the outbox is the truth, and each worker's poll finds what a lost wake-up missed.
 */
export interface DeliveryWakeups {
  /** Calls `onWake` when another instance announces due work, and once whenever (re)connected. */
  listen(self: string, onWake: () => void, log: WakeupLog): { stop(): Promise<void> };
  /** Announces due work at most once per event-loop turn, after the turn's commits. */
  notifier(self: string, log: WakeupLog): { notify(): void; stop(): void };
  /** Announces due work now (an operator's resend). */
  announce(self: string): Promise<void>;
}

/** The delivery worker's store: leases on due notifications and the attempt log. */
export interface DeliveryStore {
  claim(options: FairClaimOptions): Promise<FairClaim>;
  /** The origins of these events (missing: some id was not found). */
  originsOf(ids: readonly string[]): Promise<{ origins: string[]; missing: boolean }>;
  release(ids: readonly string[], owner: string): Promise<void>;
  releaseAllOf(owner: string): Promise<number>;
  /**
   * True when a store serves one process only (SQLite): leases found at start belong to a
   * predecessor that died, and `releaseAll` gives them back.
   */
  readonly singleProcess: boolean;
  releaseAll(): Promise<number>;
  /** The earliest next_attempt_at of a pending event, or null. */
  nextDueAt(): Promise<number | null>;
  /**
   * Records a batch of attempts and applies each transition whose lease the owner still holds
   * for that series; resolves with whether each transition was applied. Atomic per batch.
   */
  recordAttempts(items: readonly AttemptRecord[]): Promise<boolean[]>;
  /** Cross-instance wake-ups; undefined when a store serves one process only. */
  readonly wakeups: DeliveryWakeups | undefined;
}

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
  transactionId: string | null;
  reason: string | null;
  accountId: string;
  currency: string;
  amountMinor: bigint;
  accountSeq: bigint;
  balanceAfterMinor: bigint;
  createdAt: number;
};

/** The console's reads, each scoped by merchant where a merchant may ask. */
export interface ConsoleReads {
  search(search: PaymentSearch): Promise<TransactionRecord[]>;
  /** One payment, scoped to a merchant when `merchantId` is given. */
  find(id: string, merchantId: string | undefined): Promise<TransactionRecord | undefined>;
  /** One account's postings, keyset-paged on its chain: newest first before `beforeSeq`, oldest first after `afterSeq`. */
  postings(accountId: string, options: { limit: number; beforeSeq?: bigint; afterSeq?: bigint }): Promise<PostingRow[]>;
}

/** Small named values the gateway keeps (the secret key check, the readiness probe). */
export interface MetaStore {
  get(name: string): Promise<string | undefined>;
  getOrInsert(name: string, value: string, now: number): Promise<string>;
  put(name: string, value: string, now: number): Promise<void>;
}

/**
 * What a read-modify-write use case (a refund, an operator's ledger adjustment) may do inside
 * one database transaction. Rows read here are locked until it ends (SQLite: the one writer).
 */
export interface UnitOfWork {
  lockPayment(id: string): Promise<TransactionRecord | undefined>;
  findRefundByKey(merchantId: string, idempotencyKey: string): Promise<RefundRecord | undefined>;
  insertRefund(refund: RefundRecord): Promise<void>;
  /** Moves the payment's refunded total from `fromMinor` to `toMinor`; false if it was not `fromMinor`. */
  addToRefunded(transactionId: string, fromMinor: bigint, toMinor: bigint): Promise<boolean>;
  /** Creates missing accounts and locks those that keep a running balance, in one global order. */
  lockAccounts(refs: AccountRef[], now: number): Promise<Map<string, AccountState>>;
  /** Inserts an entry and its postings as planned by domain/ledger.ts planPostings. */
  insertEntry(entry: JournalEntry, postings: PlannedPosting[]): Promise<void>;
  balance(ref: AccountRef): Promise<bigint>;
  findEntryByIdempotencyKey(key: string): Promise<EntryWithPostings | undefined>;
  insertOutboxEvent(event: NewOutboxEvent): Promise<void>;
}

// ---- The processor: where a live payment's money moves (the sandbox moves none). ----
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
  /** Sends a refund to the processor; resolves when accepted, throws (a GatewayError to show the merchant) when refused. */
  refund(request: RefundRequest): Promise<RefundAccepted>;
};

/** Everything the store offers the rest of the gateway (store/open-store.ts builds it). */
export type Store = {
  readonly kind: StoreKind;
  readonly payments: PaymentStore;
  readonly completions: CompletionStore;
  readonly merchants: MerchantStore;
  readonly ledger: LedgerReads;
  readonly refunds: RefundReads;
  readonly outbox: OutboxReads;
  readonly deliveries: DeliveryStore;
  readonly consoleAccounts: ConsoleAccountStore;
  readonly consoleReads: ConsoleReads;
  readonly meta: MetaStore;
  /** Runs `work` in one database transaction: all of it commits, or none. */
  unitOfWork<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  /** The store answers (a cheap read). */
  ping(): Promise<void>;
  /** The error is the store being unreachable, full or busy (answered 503), not a refusal. */
  isUnavailable(error: unknown): boolean;
  /** A UNIQUE constraint refused the write (an idempotent race lost). */
  isUniqueViolation(error: unknown): boolean;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};
