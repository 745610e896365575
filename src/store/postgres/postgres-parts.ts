// What the PostgreSQL store does its own way (open-store.ts builds the shared ports around it):
// initiations as one multi-row INSERT per event-loop turn, completions as sets, attempt batches
// as one statement, leases on the pool, and LISTEN/NOTIFY between instances.
import type pg from 'pg';
import type { DeliveryWakeups } from '../../app/ports/delivery.ts';
import type { AttemptRecord } from '../../domain/outbox-event.ts';
import type { StoreEngine } from '../engine.ts';
import { limitOpenTransactions } from '../job-runner.ts';
import type { EngineParts } from '../engine-parts.ts';
import { recordAttemptsIn } from '../repos/attempts.repo.ts';
import { indexQueuedPaymentsIn } from '../repos/payment-search.repo.ts';
import { GatewayMetaRepo } from '../repos/gateway-meta.repo.ts';
import type { TransactionsRepo } from '../repos/transactions.repo.ts';
import { recordAttemptsPg } from './attempts.ts';
import { CompletionBatches } from './completion-batches.ts';
import { PgInitiationBatch } from './initiation-batch.ts';
import { notifyOutbox, OutboxListener, OutboxNotifier } from './wakeups.ts';

export function postgresParts(engine: StoreEngine, pool: pg.Pool, transactions: TransactionsRepo): EngineParts {
  const initiations = new PgInitiationBatch(pool, transactions);
  const completions = new CompletionBatches(pool);
  const inTransaction = limitOpenTransactions(engine);
  return {
    insertOrGet: (record) => initiations.insertOrGet(record),
    writeCompletion: (plan) => completions.write(plan),
    lease: undefined,
    // One statement for distinct events; a batch that repeats an event records them in turn, in a transaction.
    recordAttempts: (items: readonly AttemptRecord[]) =>
      new Set(items.map((item) => item.attempt.eventId)).size === items.length
        ? recordAttemptsPg(pool, items)
        : inTransaction((trx) => recordAttemptsIn(trx, items)),
    writeProbe: (name, value, now) => new GatewayMetaRepo(engine.db).put(name, value, now),
    indexPaymentSearch: (limit) => engine.transaction((trx) => indexQueuedPaymentsIn(trx, limit)),
    singleProcess: false,
    wakeups: postgresWakeups(pool),
  };
}

function postgresWakeups(pool: pg.Pool): DeliveryWakeups {
  return {
    listen(self, onWake, log) {
      const listener = new OutboxListener(pool, self, onWake, log);
      listener.start();
      return listener;
    },
    notifier: (self, log) => new OutboxNotifier(pool, self, log),
    announce: (self) => notifyOutbox(pool, self),
  };
}
