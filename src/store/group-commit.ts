// Group commit for SQLite: writes that arrive in the same event-loop turn share one
// transaction and so one fsync (on the writer thread, see dialects/sqlite.ts); each caller is
// answered only after that commit. Two kinds of work share a group:
//   - `write`: independent single-row writes (an initiation's INSERT … ON CONFLICT DO NOTHING).
//     They run concurrently inside the group's transaction, so their statements travel to the
//     writer thread together: one message for the whole group, not one per row.
//   - `transaction`: read-modify-write units (a completion with its ledger postings). They run
//     one after another inside the group's transaction, each seeing the ones before it, which
//     is exactly what running them in separate transactions in that order would give.
// A work item that throws aborts the group (nothing of it commits); the group is then run again
// item by item, each in its own transaction, so one failure cannot fail its neighbours.
import type { Db, Store, Trx } from './open-store.ts';

/** A queued unit of work; `D` is what it runs on (a Kysely handle, or the group's transaction). */
type Item<T, D> = { work: (db: D) => Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void };
type Independent = Item<any, Db>;
type Sequential = Item<any, Trx>;

const MAX_BATCH = 512;

/** Runs one write; `db` is either a transaction shared with other writes (SQLite) or the pool. */
export type WriteRunner = <T>(work: (db: Db) => Promise<T>) => Promise<T>;
/** Runs one unit of work atomically: SQLite inside the group's transaction, PostgreSQL in its own. */
export type TransactionRunner = <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;

export type Writer = { write: WriteRunner; transaction: TransactionRunner };

export function createGroupCommit(store: Store): Writer {
  const independent: Independent[] = [];
  const sequential: Sequential[] = [];
  let scheduled = false;
  let flushing = false;

  async function runAlone(item: Independent | Sequential): Promise<void> {
    try {
      item.resolve(await store.transaction(item.work));
    } catch (error) {
      item.reject(error);
    }
  }

  async function runGroup(together: Independent[], inOrder: Sequential[]): Promise<void> {
    const all = [...together, ...inOrder];
    if (all.length === 1) return runAlone(all[0]!);
    try {
      const results = await store.transaction(async (trx) => {
        // Independent writes go through the store's pass-through handle so their statements travel
        // together (Kysely would queue them one by one on `trx`). allSettled, not all: every
        // statement must have finished before COMMIT or ROLLBACK is sent.
        const direct = store.insideTransactionDb ?? trx;
        const settled = await Promise.allSettled(together.map((item) => item.work(direct)));
        const out: unknown[] = [];
        for (const s of settled) {
          if (s.status === 'rejected') throw s.reason;
          out.push(s.value);
        }
        for (const item of inOrder) out.push(await item.work(trx));
        return out;
      });
      all.forEach((item, i) => item.resolve(results[i]));
    } catch {
      for (const item of all) await runAlone(item);
    }
  }

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    try {
      while (independent.length > 0 || sequential.length > 0) {
        const together = independent.splice(0, MAX_BATCH);
        const inOrder = sequential.splice(0, MAX_BATCH - together.length);
        await runGroup(together, inOrder);
      }
    } finally {
      flushing = false;
    }
  }

  function enqueue<T, D>(queue: Item<any, D>[], work: (db: D) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve, reject });
      // While a group is committing, newcomers wait and form the next group.
      if (!flushing && !scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
    });
  }

  return {
    write: (work) => enqueue(independent, work),
    transaction: (work) => enqueue(sequential, work),
  };
}

/** Read-modify-write transactions (completions) open at once on PostgreSQL; see createDirectWriter. */
export const MAX_OPEN_TRANSACTIONS = 4;

/** MAX_OPEN_TRANSACTIONS, but always leaving two pooled connections to everything else (DATABASE_POOL_SIZE may be small). */
function openTransactionLimit(store: Store): number {
  const poolSize = store.pgPool?.options.max ?? 10;
  return Math.max(1, Math.min(MAX_OPEN_TRANSACTIONS, poolSize - 2));
}

/**
 * PostgreSQL commits concurrent transactions in groups on its own, so each write runs directly
 * on the pool: a single-statement write is then one autocommit round trip, not BEGIN/…/COMMIT.
 * Read-modify-write transactions are limited to MAX_OPEN_TRANSACTIONS at once, the rest wait
 * here: completions of one merchant queue on its payout row, and a transaction waiting for a row
 * lock holds a pool connection, so without the limit they took every connection of the pool and
 * starved initiations, status reads and the delivery worker (notification p99 ~22 s at an offered
 * 200 payments/s, docs/performance.md).
 */
export function createDirectWriter(store: Store, maxOpen = openTransactionLimit(store)): Writer {
  let open = 0;
  const waiting: Array<() => void> = [];
  const transaction: TransactionRunner = async (work) => {
    if (open >= maxOpen) await new Promise<void>((resolve) => waiting.push(resolve));
    else open++;
    try {
      return await store.transaction(work);
    } finally {
      // Hand the slot straight to the next waiter (open stays the same), or give it back.
      const next = waiting.shift();
      if (next) next();
      else open--;
    }
  };
  return { write: (work) => work(store.db), transaction };
}
