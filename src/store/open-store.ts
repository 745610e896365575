// Opens the configured store (SQLite file or PostgreSQL) behind one Kysely interface.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.ts';
import { NodeSqliteDialect } from './dialects/sqlite.ts';
import type { WriterStats } from './dialects/sqlite-writer.ts';
import { createPostgresDialect, createPostgresPool } from './dialects/postgres.ts';
import { migrateToLatest } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

export type Store = {
  readonly dialect: Dialect;
  readonly db: Db;
  /** PostgreSQL only: the pool, for LISTEN/NOTIFY. */
  readonly pgPool: pg.Pool | undefined;
  /** Runs `work` in one database transaction (SQLite: BEGIN IMMEDIATE). */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * SQLite only: statements through this Kysely go straight to the writer connection. Valid only
   * inside a transaction the caller holds (group commit), where statements issued together then
   * travel to the writer thread together; Kysely's Transaction object would run them one by one.
   */
  readonly insideTransactionDb: Db | undefined;
  /** SQLite only: messages and statements sent to the writer thread so far. */
  sqliteWriterStats(): WriterStats | undefined;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type OpenStoreOptions = { poolSize?: number };

export function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Store {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const dialect = new NodeSqliteDialect({ path });
    const db = new Kysely<Database>({ dialect });
    const insideTransactionDb = new Kysely<Database>({ dialect: dialect.insideTransaction() });
    return makeStore('sqlite', db, { insideTransactionDb, sqliteWriterStats: () => dialect.writerStats() });
  }
  const pool = createPostgresPool(databaseUrl, options.poolSize);
  const db = new Kysely<Database>({ dialect: createPostgresDialect(pool) });
  return makeStore('postgres', db, { pgPool: pool });
}

type DialectExtras = { pgPool?: pg.Pool; insideTransactionDb?: Db; sqliteWriterStats?: () => WriterStats | undefined };

function makeStore(dialect: Dialect, db: Db, extras: DialectExtras): Store {
  let closed = false;
  return {
    dialect,
    db,
    pgPool: extras.pgPool,
    insideTransactionDb: extras.insideTransactionDb,
    sqliteWriterStats: extras.sqliteWriterStats ?? (() => undefined),
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
