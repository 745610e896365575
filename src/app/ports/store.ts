// The store's ports: what the use cases need from the database, declared here and implemented
// by store/ (docs/architecture.md "Ports"). Each is narrow and speaks in domain entities; none
// says which database answers it, how writes are batched or on which thread they commit.
// `openStore()` (store/open-store.ts) hands out a `Store`: these ports and nothing else.
import type { CompletionInput, CompletionPlan } from '../../domain/completion.ts';
import type {
  AccountRecord,
  AccountRef,
  AccountState,
  EntryWithPostings,
  JournalEntry,
  PlannedPosting,
  PostingRecord,
} from '../../domain/ledger.ts';
import type { MerchantRecord } from '../../domain/merchant.ts';
import type { PayerCheck } from '../../domain/payer-check.ts';
import type { DeliveryAttempt, NewOutboxEvent, OutboxEvent, OutboxStatus } from '../../domain/outbox-event.ts';
import type { RefundRecord } from '../../domain/refund.ts';
import type { TransactionRecord, Transition } from '../../domain/transaction.ts';
import type { ConsoleAccountStore, ConsoleReads } from './console.ts';
import type { DeliveryStore } from './delivery.ts';
import type { AttentionStore, ProcessorAttemptStore, ProcessorNotificationStore } from './processor-store.ts';

export type StoreKind = 'sqlite' | 'postgres';

/** Payments: the initiation's durable write, the request path's lookups, the expiry sweep. */
export interface PaymentStore {
  /**
   * Inserts unless (merchant, trackid) exists; either way resolves with the stored row, only
   * after it is durably committed. Concurrent identical requests produce one row.
   */
  insertOrGet(record: TransactionRecord): Promise<{ inserted: boolean; row: TransactionRecord }>;
  findById(merchantId: string, id: string): Promise<TransactionRecord | undefined>;
  findByTrackid(merchantId: string, trackid: string): Promise<TransactionRecord | undefined>;
  /**
   * The payment whose redirect id is exactly `redirectId`. `carriedId`: the transaction id a
   * keyed redirect id carries, its MAC checked by the caller (domain/keyed-ids.ts), read by
   * primary key; undefined for an id of the form issued before keyed ids.
   */
  findByRedirectId(redirectId: string, carriedId: string | undefined): Promise<TransactionRecord | undefined>;
  /** By id alone, whoever's it is (workers, never a merchant's request). */
  get(id: string): Promise<TransactionRecord | undefined>;
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
  /**
   * Holds a PROCESSING payment for an operator: records the payer check's verdict and leaves the
   * state (docs/console.md "Needs attention"). False when it is final or holds a verdict already.
   * A held payment is completed only by a plan made from the held row (the operator's decision).
   */
  holdForPayer(transactionId: string, payerCheck: PayerCheck): Promise<boolean>;
}

export interface MerchantStore {
  /** False when the id is taken. */
  insert(merchant: MerchantRecord): Promise<boolean>;
  findById(id: string): Promise<MerchantRecord | undefined>;
  list(): Promise<MerchantRecord[]>;
  count(): Promise<number>;
  /** Changes whenever any merchant row changes (the merchant directory polls it). */
  changeMarker(): Promise<string>;
  /** False when no merchant has the id; `updated_at` moves strictly forward (changeMarker). */
  update(id: string, changes: MerchantChanges, updatedAt: number): Promise<boolean>;
}

/** What may change on a merchant after it is created. */
export type MerchantChanges = Partial<
  Pick<
    MerchantRecord,
    | 'passwordHash'
    | 'webhookSecretSealed'
    | 'previousWebhookSecretSealed'
    | 'previousWebhookSecretExpiresAt'
    | 'status'
    | 'feeRatePpm'
    | 'payerMismatch'
  >
>;

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
export type ListOptions = {
  merchantId?: string;
  /**
   * One status, or `attention`: what needs a person — failed, or pending after at least one
   * attempt of its series failed (retrying).
   */
  status?: OutboxStatus | 'attention';
  limit?: number;
  before?: ListCursor;
};

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

/** Small named values the gateway keeps (the secret key check, the readiness probe). */
export interface MetaStore {
  get(name: string): Promise<string | undefined>;
  getOrInsert(name: string, value: string, now: number): Promise<string>;
  put(name: string, value: string, now: number): Promise<void>;
  /**
   * Overwrites `name` like `put`, for the readiness probe (app/store-health.ts). SQLite refuses it
   * while a write has failed for lack of space and the WAL could not be checkpointed since.
   */
  writeProbe(name: string, value: string, now: number): Promise<void>;
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

/**
 * The console's payment search table, written behind the commit (docs/architecture.md "Payment
 * search"): an initiation or a change of state queues the payment's id in its own commit, and
 * catching up moves what is queued into the table in batches. The console's search catches up
 * before it reads; the indexer worker (app/payment-search-indexer.ts) keeps the queue short.
 */
export interface PaymentSearchIndex {
  /** Indexes what is queued, a batch at a time, up to a bound; returns how many changes it took. */
  catchUp(): Promise<number>;
}

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
  readonly searchIndex: PaymentSearchIndex;
  readonly meta: MetaStore;
  /** Live payments: attempts at the processor, its notifications, and what needs a person. */
  readonly processorAttempts: ProcessorAttemptStore;
  readonly processorNotifications: ProcessorNotificationStore;
  readonly attention: AttentionStore;
  /** Runs `work` in one database transaction: all of it commits, or none. */
  unitOfWork<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  /** The store answers (a cheap read). */
  ping(): Promise<void>;
  /**
   * Bytes the gateway may still write on the file system of its data directory (SQLite: the
   * database's directory); undefined on PostgreSQL, whose disk is the database server's.
   */
  dataDirFreeBytes(): number | undefined;
  /** The error is the store being unreachable, full or busy (answered 503), not a refusal. */
  isUnavailable(error: unknown): boolean;
  /** A UNIQUE constraint refused the write (an idempotent race lost). */
  isUniqueViolation(error: unknown): boolean;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};
