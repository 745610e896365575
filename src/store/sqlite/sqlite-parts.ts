// What the SQLite store does its own way (open-store.ts builds the shared ports around it): the
// hot writes are store jobs (jobs.ts) that the writer thread commits in groups, one fsync per
// group; one process serves the file, so no wake-ups cross processes.
import type { CompletionPlan } from '../../domain/completion.ts';
import type { AttemptRecord, OutboxEvent } from '../../domain/outbox-event.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { StoreEngine } from '../engine.ts';
import type { EngineParts } from '../engine-parts.ts';
import { createJobRunner } from '../job-runner.ts';
import type { LeaseArgs } from '../repos/outbox-claims.repo.ts';
import { STORE_JOBS_MODULE, storeJobs } from './jobs.ts';

export function sqliteParts(engine: StoreEngine): EngineParts {
  const run = createJobRunner(engine, storeJobs, STORE_JOBS_MODULE);
  return {
    insertOrGet: (record: TransactionRecord) => run('insertTransaction', record),
    writeCompletion: (plan: CompletionPlan) => run('writeCompletion', plan),
    // Run as its own autocommit statement a lease was one more fsync per claim (docs/performance.md).
    lease: (args: LeaseArgs): Promise<OutboxEvent[]> => run('leaseOutboxEvents', args),
    recordAttempts: (items: readonly AttemptRecord[]) => run('recordAttempts', items),
    writeProbe: (name, value, now) => run('writeReadinessProbe', { name, value, now }),
    indexPaymentSearch: (limit) => run('indexPaymentSearch', limit),
    singleProcess: true,
    wakeups: undefined,
  };
}
