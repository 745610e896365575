// Group commit for delivery attempts: outcomes that arrive while a write is under way are
// recorded together in the next transaction, so under load the attempt log costs one commit
// (one fsync on SQLite) per batch instead of per notification. Each caller still learns its
// own result only after the commit. If a batch fails, its items are retried one by one so a
// single bad record cannot fail its neighbours.
//
// On SQLite a batch is the `recordAttempts` store job: the writer thread runs the whole batch
// in one message and commits it in a group with initiations and completions, instead of five
// messages (begin, read, insert, update, commit) on the thread they all wait for.
import type { AttemptRecord, OutboxRepo } from '../store/outbox.repo.ts';

/** Records a batch atomically; resolves with whether each transition was applied. */
export type RecordBatch = (items: AttemptRecord[]) => Promise<boolean[]>;

const MAX_BATCH = 256;

type Pending = { item: AttemptRecord; resolve: (applied: boolean) => void; reject: (error: unknown) => void };

export class AttemptRecorder {
  readonly #repo: OutboxRepo;
  readonly #recordBatch: RecordBatch;
  readonly #queue: Pending[] = [];
  #flushing = false;

  /** `recordBatch`: how a whole batch is recorded (a store job on SQLite); the repository's transaction otherwise. */
  constructor(repo: OutboxRepo, recordBatch: RecordBatch = (items) => repo.recordAttempts(items)) {
    this.#repo = repo;
    this.#recordBatch = recordBatch;
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
