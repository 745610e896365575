// One node:sqlite connection with a prepared-statement cache. Used on both sides of the
// SQLite store: by the writer worker (sqlite-writer-worker.ts) and by the main thread's
// read connection. No Kysely here, so the worker loads only what it runs.
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const STATEMENT_CACHE_LIMIT = 256;

export type SqliteOptions = { path: string; busyTimeoutMs?: number };

export function openSqlite(options: SqliteOptions): DatabaseSync {
  const db = new DatabaseSync(options.path);
  // WAL + synchronous=FULL: a committed write survives power loss, readers never block the writer.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

/** What one statement produced: rows for a query, counts for a write (Kysely's QueryResult shape). */
export type SqliteResult = { rows: unknown[]; numAffectedRows?: bigint; insertId?: bigint };

/**
 * A prepared statement and whether it returns rows. `StatementSync.columns()` builds an array of
 * column descriptors on every call (~12 µs for a 25-column `select *`), so it is asked once per
 * statement, not once per execution. A statement that returns rows keeps returning rows even if
 * SQLite re-prepares it after a schema change, so the cached answer stays right.
 */
type Prepared = { statement: StatementSync; returnsRows: boolean };

export class SqliteStatements {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) return prepared;
    const statement = this.db.prepare(sql);
    prepared = { statement, returnsRows: statement.columns().length > 0 };
    if (this.#statements.size >= STATEMENT_CACHE_LIMIT) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  execute(sql: string, parameters: ReadonlyArray<unknown>): SqliteResult {
    // On SQLITE_FULL, IOERR, BUSY or NOMEM SQLite has already rolled the transaction back; a
    // second ROLLBACK would fail ("no transaction is active") and hide the real error (disk
    // full → 503) behind one that looks like a bug (→ 500).
    if (sql === 'rollback' && !this.db.isTransaction) return { rows: [] };
    const { statement, returnsRows } = this.prepare(sql);
    const params = parameters.map(toSqliteValue);
    if (returnsRows) return { rows: statement.all(...params) };
    const result = statement.run(...params);
    return { rows: [], numAffectedRows: BigInt(result.changes), insertId: BigInt(result.lastInsertRowid) };
  }
}

type SqliteValue = null | number | bigint | string | Uint8Array;

export function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`Unsupported SQLite parameter type: ${typeof value}`);
}
