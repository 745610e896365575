// Group commit for delivery attempts: outcomes that arrive while a write is under way are
// recorded together in the next transaction, so under load the attempt log costs one commit
// (one fsync on SQLite) per batch instead of per notification. Each caller still learns its
// own result only after the commit. If a batch fails, its items are retried one by one so a
// single bad record cannot fail its neighbours.
//
// How a batch is written depends on the store (recordBatchFor): on SQLite it is the
// `recordAttempts` store job, which the writer thread runs in one message and commits in a group
// with initiations and completions, instead of five messages (begin, read, insert, update,
// commit) on the thread they all wait for; on PostgreSQL it is one statement
// (store/pg-attempts.ts) instead of a transaction of five round trips.
import type { StoreEngine } from '../store/engine.ts';
import type { OutboxRepo } from '../store/repos/outbox.repo.ts';
import type { AttemptRecord } from '../domain/outbox-event.ts';
import { recordAttemptsPg } from '../store/postgres/attempts.ts';

/** Records a batch atomically; resolves with whether each transition was applied. */
export type RecordBatch = (items: AttemptRecord[]) => Promise<boolean[]>;

const MAX_BATCH = 256;

/**
 * The batch write the gateway runs on this store: SQLite's store job, PostgreSQL's single
 * statement (for distinct events; a batch that repeats one goes through the repository's
 * transaction, which records them in turn); the repository's transaction otherwise.
 */
export function recordBatchFor(store: Pick<StoreEngine, 'sqliteJobs' | 'pgPool'>, repo: OutboxRepo): RecordBatch {
  const { sqliteJobs: jobs, pgPool: pool } = store;
  if (jobs) return (items) => jobs.run<boolean[]>('recordAttempts', items);
  if (pool)
    return (items) =>
      new Set(items.map((item) => item.attempt.eventId)).size === items.length
        ? recordAttemptsPg(pool, items)
        : repo.recordAttempts(items);
  return (items) => repo.recordAttempts(items);
}

type Pending = { item: AttemptRecord; resolve: (applied: boolean) => void; reject: (error: unknown) => void };

export class AttemptRecorder {
  readonly #repo: OutboxRepo;
  readonly #recordBatch: RecordBatch;
  readonly #queue: Pending[] = [];
  #flushing = false;

  /** Batches are written as recordBatchFor(store) says; the one-by-one fallback goes through `repo`. */
  constructor(store: Pick<StoreEngine, 'sqliteJobs' | 'pgPool'>, repo: OutboxRepo) {
    this.#repo = repo;
    this.#recordBatch = recordBatchFor(store, repo);
  }

  /** Resolves with whether the transition was applied (see OutboxRepo.recordAttempt). */
  record(item: AttemptRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#flushing) return;
      this.#flushing = true;
      setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          const applied = await this.#recordBatch(batch.map((p) => p.item));
          batch.forEach((p, i) => p.resolve(applied[i] ?? false));
        } catch {
          for (const p of batch) {
            try {
              p.resolve(await this.#repo.recordAttempt(p.item.attempt, p.item.owner, p.item.transition));
            } catch (error) {
              p.reject(error);
            }
          }
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}
