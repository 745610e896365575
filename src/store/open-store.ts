// Opens the configured store (SQLite file or PostgreSQL) behind one Kysely interface.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.ts';
import { NodeSqliteDialect, openSqlite } from './dialects/sqlite.ts';
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
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type OpenStoreOptions = { poolSize?: number };

export function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Store {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Kysely<Database>({ dialect: new NodeSqliteDialect(openSqlite({ path })) });
    return makeStore('sqlite', db, undefined);
  }
  const pool = createPostgresPool(databaseUrl, options.poolSize);
  const db = new Kysely<Database>({ dialect: createPostgresDialect(pool) });
  return makeStore('postgres', db, pool);
}

function makeStore(dialect: Dialect, db: Db, pgPool: pg.Pool | undefined): Store {
  let closed = false;
  return {
    dialect,
    db,
    pgPool,
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
