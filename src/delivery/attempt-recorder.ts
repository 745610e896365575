// Group commit for delivery attempts: outcomes that arrive while a write is under way are
// recorded together in the next batch, so under load the attempt log costs one commit (one
// fsync on SQLite) per batch instead of per notification. Each caller still learns its own
// result only after the commit. If a batch fails, its items are retried one by one so a single
// bad record cannot fail its neighbours. How a batch is written is the store's business
// (app/ports/delivery.ts DeliveryStore.recordAttempts).
import type { DeliveryStore } from '../app/ports/delivery.ts';
import type { AttemptRecord } from '../domain/outbox-event.ts';

const MAX_BATCH = 256;

type Pending = { item: AttemptRecord; resolve: (applied: boolean) => void; reject: (error: unknown) => void };

export class AttemptRecorder {
  readonly #recordBatch: DeliveryStore['recordAttempts'];
  readonly #queue: Pending[] = [];
  #flushing = false;

  constructor(recordBatch: DeliveryStore['recordAttempts']) {
    this.#recordBatch = recordBatch;
  }

  /** Resolves with whether the transition was applied (the lease was still the caller's). */
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
              p.resolve((await this.#recordBatch([p.item]))[0] ?? false);
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
