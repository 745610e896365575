// Opens the configured store (SQLite file or PostgreSQL) behind one Kysely interface.
import { closeSync, existsSync, mkdirSync, openSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.ts';
import { NodeSqliteDialect } from './sqlite/dialect.ts';
import type { SqliteLookupBatches } from './sqlite/lookup-batches.ts';
import type { WriterStats } from './sqlite/writer.ts';
import { createPostgresDialect, createPostgresPool } from './postgres/pool.ts';
import { migrateToLatest } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

export type StoreEngine = {
  readonly dialect: Dialect;
  readonly db: Db;
  /** PostgreSQL only: the pool, for LISTEN/NOTIFY. */
  readonly pgPool: pg.Pool | undefined;
  /** Runs `work` in one database transaction (SQLite: BEGIN IMMEDIATE). */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * SQLite only: store jobs on the writer thread (store-jobs.ts). `load` makes the thread import a
   * module exporting `storeJobs`; `run` runs one of them there, committed in a group with others.
   */
  readonly sqliteJobs: SqliteJobs | undefined;
  /**
   * SQLite on a file: the request path's one-row lookups, batched per event-loop turn on the main
   * thread's read connection (sqlite/lookup-batches.ts; docs/performance.md "SQLite reads").
   */
  readonly sqliteLookups: SqliteLookupBatches | undefined;
  /** SQLite only: messages, statements and jobs sent to the writer thread so far. */
  sqliteWriterStats(): WriterStats | undefined;
  /** SQLite on a file: bytes free to the gateway's user on the database directory's file system. */
  dataDirFreeBytes(): number | undefined;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type SqliteJobs = { load(module: URL): void; run<T>(name: string, args: unknown): Promise<T> };

export type OpenStoreOptions = { poolSize?: number };

export function openStoreEngine(databaseUrl: string, options: OpenStoreOptions = {}): StoreEngine {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') createOwnerOnly(path);
    const dialect = new NodeSqliteDialect({ path });
    const db = new Kysely<Database>({ dialect });
    return makeStore('sqlite', db, {
      sqliteJobs: dialect.jobs(),
      sqliteLookups: dialect.lookups(),
      sqliteWriterStats: () => dialect.writerStats(),
      ...(path !== ':memory:' && { dataDirFreeBytes: () => freeBytes(dirname(path)) }),
    });
  }
  const pool = createPostgresPool(databaseUrl, options.poolSize);
  const db = new Kysely<Database>({ dialect: createPostgresDialect(pool) });
  return makeStore('postgres', db, { pgPool: pool });
}

/**
 * The database holds payers' names, account numbers and e-mails, so it is the owner's alone: a
 * directory the gateway creates for it is 0700, and a new database file is created empty with mode
 * 0600 before SQLite opens it. SQLite creates the WAL, its shared-memory index and any journal with
 * the database file's mode, so they are 0600 too (docs/deployment.md "Files and permissions"). An
 * existing file keeps the mode it has.
 */
function createOwnerOnly(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600)); // 'wx': only when it does not exist yet; the umask cannot widen 0600
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Free space on `dir`'s file system for an unprivileged user (statfs's bavail); undefined when it cannot be read. */
function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

type DialectExtras = {
  pgPool?: pg.Pool;
  sqliteJobs?: SqliteJobs;
  sqliteLookups?: SqliteLookupBatches | undefined;
  sqliteWriterStats?: () => WriterStats | undefined;
  dataDirFreeBytes?: () => number | undefined;
};

function makeStore(dialect: Dialect, db: Db, extras: DialectExtras): StoreEngine {
  let closed = false;
  return {
    dialect,
    db,
    pgPool: extras.pgPool,
    sqliteJobs: extras.sqliteJobs,
    sqliteLookups: extras.sqliteLookups,
    sqliteWriterStats: extras.sqliteWriterStats ?? (() => undefined),
    dataDirFreeBytes: extras.dataDirFreeBytes ?? (() => undefined),
    transaction: (work) => db.transaction().execute(work),
    migrate: () => migrateToLatest(db),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

// Kept here too so callers keep one import for the store's surface.
export { isStoreUnavailable } from './store-unavailable.ts';
