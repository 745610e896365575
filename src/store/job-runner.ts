// Store jobs: self-contained units of database work, named in a registry (store/sqlite/jobs.ts), each
// run atomically. Where a job runs is the store's business:
//   - SQLite: on the writer thread (dialects/sqlite-writer-worker.ts), which commits the jobs
//     arriving together in one transaction and one fsync (group commit). The main thread sends a
//     job's name and arguments once and gets its result after the commit: no round trip per
//     statement, no query building on the HTTP thread, and no waiting for the previous group.
//   - PostgreSQL: in its own transaction on the pool (PostgreSQL commits concurrent
//     transactions in groups on its own), at most MAX_OPEN_TRANSACTIONS at once; see below.
// A job receives a Kysely handle inside its transaction and its arguments, and must be a pure
// function of them (no clock, no closures): on SQLite it runs in another thread, so its
// arguments and result travel by structured clone (plain data, bigint included).
import type { StoreEngine, Trx } from './engine.ts';

export type StoreJob<A, R> = (trx: Trx, args: A) => Promise<R>;
export type JobRegistry = Record<string, StoreJob<any, any>>;
export type JobRunner<R extends JobRegistry> = <K extends keyof R & string>(
  name: K,
  args: Parameters<R[K]>[1],
) => Promise<Awaited<ReturnType<R[K]>>>;

/**
 * `module` must be the URL of the module that exports `registry` as `storeJobs`: the SQLite
 * writer thread imports it to find the jobs by name.
 */
export function createJobRunner<R extends JobRegistry>(store: StoreEngine, registry: R, module: URL): JobRunner<R> {
  const sqlite = store.sqliteJobs;
  if (sqlite) {
    sqlite.load(module);
    return (name, args) => sqlite.run(name, args);
  }
  const limited = limitOpenTransactions(store);
  return (name, args) => limited((trx) => registry[name]!(trx, args));
}

/** Read-modify-write transactions (completions) open at once on PostgreSQL; see limitOpenTransactions. */
export const MAX_OPEN_TRANSACTIONS = 4;

/**
 * MAX_OPEN_TRANSACTIONS, but always leaving two pooled connections to everything else (DATABASE_POOL_SIZE may be
 * small).
 */
function openTransactionLimit(store: StoreEngine): number {
  const poolSize = store.pgPool?.options.max ?? 10;
  return Math.max(1, Math.min(MAX_OPEN_TRANSACTIONS, poolSize - 2));
}

/**
 * Runs transactions on the pool, at most `maxOpen` at once; the rest wait here. Completions of
 * one merchant queue on its payout row, and a transaction waiting for a row lock holds a pool
 * connection, so without the limit they took every connection of the pool and starved
 * initiations, status reads and the delivery worker (notification p99 ~22 s at an offered 200
 * payments/s, docs/performance.md).
 */
export function limitOpenTransactions(
  store: StoreEngine,
  maxOpen = openTransactionLimit(store),
): <T>(work: (trx: Trx) => Promise<T>) => Promise<T> {
  let open = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
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
}
