// The parts of the ports that each database engine implements its own way (sqlite/sqlite-parts.ts,
// postgres/postgres-parts.ts); open-store.ts builds everything else from the shared repositories.
import type { DeliveryWakeups } from '../app/ports/delivery.ts';
import type { CompletionPlan } from '../domain/completion.ts';
import type { AttemptRecord, OutboxEvent } from '../domain/outbox-event.ts';
import type { TransactionRecord } from '../domain/transaction.ts';
import type { LeaseArgs } from './repos/outbox-claims.repo.ts';

export type EngineParts = {
  /** The initiation's durable write (app/ports/store.ts PaymentStore.insertOrGet). */
  insertOrGet(record: TransactionRecord): Promise<{ inserted: boolean; row: TransactionRecord }>;
  /** A planned completion's atomic, conditional write (app/ports/store.ts CompletionStore.write). */
  writeCompletion(plan: CompletionPlan): Promise<boolean>;
  /** Where a claim's lease write runs; undefined: on the repository's own handle. */
  lease: ((args: LeaseArgs) => Promise<OutboxEvent[]>) | undefined;
  recordAttempts(items: readonly AttemptRecord[]): Promise<boolean[]>;
  /** Overwrites the readiness probe's row (app/ports/store.ts MetaStore.writeProbe). */
  writeProbe(name: string, value: string, now: number): Promise<void>;
  /** One batch of the payment search's catch-up (repos/payment-search.repo.ts indexQueuedPaymentsIn). */
  indexPaymentSearch(limit: number): Promise<number>;
  singleProcess: boolean;
  wakeups: DeliveryWakeups | undefined;
};
