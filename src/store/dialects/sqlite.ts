// Kysely dialect over Node's built-in `node:sqlite` (no native addon to compile).
// One connection, guarded by a mutex: SQLite has one writer anyway, and the
// group committer (store/group-commit.ts) turns many small writes into one fsync.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

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

/**
 * A prepared statement and whether it returns rows. `StatementSync.columns()` builds an array of
 * column descriptors on every call (~12 µs for a 25-column `select *`), so it is asked once per
 * statement, not once per execution. A statement that returns rows keeps returning rows even if
 * SQLite re-prepares it after a schema change, so the cached answer stays right.
 */
type Prepared = { statement: StatementSync; returnsRows: boolean };

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) return prepared;
    const statement = this.#db.prepare(sql);
    prepared = { statement, returnsRows: statement.columns().length > 0 };
    if (this.#statements.size >= STATEMENT_CACHE_LIMIT) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  executeSync<R>(compiled: { sql: string; parameters: ReadonlyArray<unknown> }): QueryResult<R> {
    const { statement, returnsRows } = this.#prepare(compiled.sql);
    const params = compiled.parameters.map(toSqliteValue);
    if (returnsRows) {
      return { rows: statement.all(...params) as R[] };
    }
    const result = statement.run(...params);
    return {
      rows: [],
      numAffectedRows: BigInt(result.changes),
      insertId: BigInt(result.lastInsertRowid),
    };
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.executeSync<R>(compiled);
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { statement } = this.#prepare(compiled.sql);
    for (const row of statement.iterate(...compiled.parameters.map(toSqliteValue))) {
      yield { rows: [row as R] };
    }
  }
}

type SqliteValue = null | number | bigint | string | Uint8Array;

function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`Unsupported SQLite parameter type: ${typeof value}`);
}

/** A FIFO mutex: Kysely hands the single connection to one user at a time. */
class Mutex {
  #tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return acquired;
  }
}

class NodeSqliteDriver implements Driver {
  readonly #db: DatabaseSync;
  readonly #connection: NodeSqliteConnection;
  readonly #mutex = new Mutex();
  #release: (() => void) | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#connection = new NodeSqliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#mutex.lock();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock up front, so a read-then-write transaction
    // cannot fail with SQLITE_BUSY when another process (the CLI) writes meanwhile.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // On SQLITE_FULL, IOERR, BUSY or NOMEM SQLite has already rolled the transaction back; a
    // second ROLLBACK would fail ("no transaction is active") and hide the real error (disk
    // full → 503) behind one that looks like a bug (→ 500).
    if (!this.#db.isTransaction) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.#db = db;
  }
  createDriver(): Driver {
    return new NodeSqliteDriver(this.#db);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
