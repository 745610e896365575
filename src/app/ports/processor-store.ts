// The store's side of live payments (implemented by store/; docs/connectors/kbank.md): the
// attempts made at the processor, the notifications it sent, and the needs-attention list.
import type {
  AttentionItem,
  AttentionKind,
  ProcessorAttempt,
  ProcessorAttemptKind,
  ProcessorAttemptState,
  ProcessorNotification,
} from '../../domain/processor-attempt.ts';

/** What may change on an attempt after it is written. */
export type AttemptChanges = Partial<
  Pick<
    ProcessorAttempt,
    | 'state'
    | 'stateAt'
    | 'qrPayload'
    | 'expiresAt'
    | 'accountName'
    | 'issuer'
    | 'processorTxnNo'
    | 'paidAmountMinor'
    | 'paidAt'
    | 'lastError'
    | 'nextCheckAt'
    | 'checks'
  >
>;

export interface ProcessorAttemptStore {
  /** Writes a new attempt; false when (transaction, kind, attempt) exists already (another instance won). */
  insert(attempt: ProcessorAttempt): Promise<boolean>;
  find(reference: string): Promise<ProcessorAttempt | undefined>;
  /** Every attempt of a transaction, oldest first. */
  forTransaction(transactionId: string): Promise<ProcessorAttempt[]>;
  /** The transaction's newest attempt of this kind. */
  latest(transactionId: string, kind: ProcessorAttemptKind): Promise<ProcessorAttempt | undefined>;
  update(reference: string, changes: AttemptChanges): Promise<void>;
  /**
   * Leases up to `limit` attempts whose check is due to `owner` until `now + leaseMs`, oldest due
   * first; an attempt leased by a live owner is skipped, so one instance checks an attempt at a time.
   */
  claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<ProcessorAttempt[]>;
  /** Gives a lease back (the check is done; `changes` carry its result and the next check). */
  release(reference: string, owner: string, changes: AttemptChanges): Promise<void>;
  /** The earliest next check, or null. */
  nextCheckAt(): Promise<number | null>;
  /** Attempts paid or voided in [from, to) (the daily reconciliation). */
  settledBetween(from: number, to: number): Promise<ProcessorAttempt[]>;
  /** Attempts in these states (the reconciliation's open list). */
  inStates(states: readonly ProcessorAttemptState[], limit: number): Promise<ProcessorAttempt[]>;
}

export interface ProcessorNotificationStore {
  /** Logs a notification; `duplicate` when one with the same dedupe key was logged already. */
  record(notification: ProcessorNotification, dedupeKey: string | null): Promise<{ duplicate: boolean }>;
  forTransaction(transactionId: string): Promise<ProcessorNotification[]>;
}

export interface AttentionStore {
  /** Raises an item; a no-op while the same (transaction, kind) is open. Resolves true when new. */
  raise(item: AttentionItem): Promise<boolean>;
  list(options: { open: boolean; limit: number }): Promise<AttentionItem[]>;
  find(id: string): Promise<AttentionItem | undefined>;
  countOpen(): Promise<number>;
  forTransaction(transactionId: string): Promise<AttentionItem[]>;
  resolve(id: string, by: string, resolution: string, at: number): Promise<boolean>;
}

export type { AttentionKind };
