// Group commit for SQLite: writes that arrive in the same event-loop turn share one
// transaction and so one fsync; each caller is answered only after that commit.
// Work items must not throw for expected outcomes (use ON CONFLICT and return a value),
// because one throwing item aborts the batch; the batch is then retried item by item so
// a single bad write cannot fail its neighbours.
import type { Db, Store, Trx } from './open-store.ts';

type Item<T> = { work: (db: Trx) => Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void };

const MAX_BATCH = 512;

/** Runs one write; `db` is either a transaction shared with other writes (SQLite) or the pool. */
export type WriteRunner = <T>(work: (db: Db) => Promise<T>) => Promise<T>;

export function createGroupCommit(store: Store): WriteRunner {
  const queue: Item<any>[] = [];
  let flushing = false;

  async function runAlone(item: Item<any>): Promise<void> {
    try {
      item.resolve(await store.transaction(item.work));
    } catch (error) {
      item.reject(error);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        if (batch.length === 1) {
          await runAlone(batch[0]!);
          continue;
        }
        try {
          const results = await store.transaction(async (trx) => {
            const out: unknown[] = [];
            for (const item of batch) out.push(await item.work(trx));
            return out;
          });
          batch.forEach((item, i) => item.resolve(results[i]));
        } catch {
          for (const item of batch) await runAlone(item);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return function runInGroup<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve, reject });
      if (!flushing && queue.length === 1) setImmediate(() => void flush());
    });
  };
}

/**
 * PostgreSQL commits concurrent transactions in groups on its own, so each write runs directly
 * on the pool: a single-statement write is then one autocommit round trip, not BEGIN/…/COMMIT.
 */
export function createDirectWriter(store: Store): WriteRunner {
  return (work) => work(store.db);
}
