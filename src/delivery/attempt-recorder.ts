// Group commit for delivery attempts: outcomes that arrive while a write is under way are
// recorded together in the next transaction, so under load the attempt log costs one commit
// (one fsync on SQLite) per batch instead of per notification. Each caller still learns its
// own result only after the commit. If a batch fails, its items are retried one by one so a
// single bad record cannot fail its neighbours.
import type { AttemptRecord, OutboxRepo } from '../store/outbox.repo.ts';

const MAX_BATCH = 256;

type Pending = { item: AttemptRecord; resolve: (applied: boolean) => void; reject: (error: unknown) => void };

export class AttemptRecorder {
  readonly #repo: OutboxRepo;
  readonly #queue: Pending[] = [];
  #flushing = false;

  constructor(repo: OutboxRepo) {
    this.#repo = repo;
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
          const applied = await this.#repo.recordAttempts(batch.map((p) => p.item));
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
