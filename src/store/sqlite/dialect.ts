// Kysely dialect over Node's built-in `node:sqlite` (no native addon to compile), in two parts:
//   - the WRITER connection lives on its own thread (sqlite-writer.ts): every transaction and
//     every statement that may write runs there, so commits and their fsync never block HTTP;
//   - a READ connection on the main thread answers plain SELECTs outside transactions
//     synchronously, without a round trip to the writer. WAL lets it read while the writer
//     writes, and a write is acknowledged only after its commit, so a read issued after an
//     acknowledged write sees it (read-your-writes).
// Repositories do not know any of this: they talk to Kysely as before. (The request path's
// one-row lookups use the read connection in per-turn batches instead: lookup-batches.ts.)
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
  type SelectQueryNode,
} from 'kysely';
import { openSqlite, SqliteStatements, toSqliteValue, type SqliteOptions } from './connection.ts';
import { SqliteLookupBatches } from './lookup-batches.ts';
import { SqliteWriter, type WriterStats } from './writer.ts';

export { openSqlite, type SqliteOptions } from './connection.ts';

/** A FIFO mutex: one transaction at a time on the writer connection. */
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

/** A SELECT built by Kysely with no CTE (a CTE could hide a write): safe on the read connection. */
function isPlainRead(compiled: CompiledQuery): boolean {
  const node = compiled.query;
  return node.kind === 'SelectQueryNode' && (node as SelectQueryNode).with === undefined;
}

/** One Kysely "connection": routes each statement to the writer thread or the read connection. */
class RoutedConnection implements DatabaseConnection {
  readonly #driver: NodeSqliteDriver;
  /** Held from BEGIN until the connection is released: the writer connection belongs to this transaction. */
  release: (() => void) | undefined;

  constructor(driver: NodeSqliteDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { reader, writer, mutex } = this.#driver;
    if (this.release) return (await writer.execute(compiled.sql, compiled.parameters)) as QueryResult<R>;
    if (reader && isPlainRead(compiled)) return reader.execute(compiled.sql, compiled.parameters) as QueryResult<R>;
    // A write outside a transaction (autocommit) waits for any open transaction, so it is never
    // swallowed into (or rolled back with) someone else's.
    const release = await mutex.lock();
    try {
      return (await writer.execute(compiled.sql, compiled.parameters)) as QueryResult<R>;
    } finally {
      release();
    }
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { reader } = this.#driver;
    if (!this.release && reader && isPlainRead(compiled)) {
      const { statement } = reader.prepare(compiled.sql);
      for (const row of statement.iterate(...compiled.parameters.map(toSqliteValue))) yield { rows: [row as R] };
      return;
    }
    const result = await this.executeQuery<R>(compiled);
    for (const row of result.rows) yield { rows: [row] };
  }
}

class NodeSqliteDriver implements Driver {
  readonly reader: SqliteStatements | undefined;
  readonly writer: SqliteWriter;
  readonly mutex = new Mutex();

  constructor(options: SqliteOptions) {
    // The main thread opens first: a bad path fails here, synchronously, and WAL mode is set
    // before the writer thread opens its own connection.
    const readDb = openSqlite(options);
    // ':memory:' is private to one connection, so there everything goes to the writer.
    if (options.path === ':memory:') readDb.close();
    this.reader = options.path === ':memory:' ? undefined : new SqliteStatements(readDb);
    this.writer = new SqliteWriter(options);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    routed.release = await this.mutex.lock();
    // IMMEDIATE takes the write lock up front, so a read-then-write transaction
    // cannot fail with SQLITE_BUSY when another process (the CLI) writes meanwhile.
    await this.writer.execute('begin immediate', []);
  }

  async commitTransaction(): Promise<void> {
    await this.writer.execute('commit', []);
  }

  async rollbackTransaction(): Promise<void> {
    await this.writer.execute('rollback', []);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    const release = routed.release;
    routed.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    // Behind the mutex: writes and transactions that were already waiting finish first.
    const release = await this.mutex.lock();
    await this.writer.close();
    release();
    if (this.reader?.db.isOpen) this.reader.db.close();
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #options: SqliteOptions;
  #driver: NodeSqliteDriver | undefined;
  constructor(options: SqliteOptions) {
    this.#options = options;
  }
  createDriver(): Driver {
    this.#driver = new NodeSqliteDriver(this.#options);
    return this.#driver;
  }
  /** The writer thread's store jobs (see sqlite-writer-worker.ts); call after the main Kysely instance exists. */
  jobs(): { load(module: URL): void; run<T>(name: string, args: unknown): Promise<T> } {
    const driver = this.#driver;
    if (!driver) throw new Error('the SQLite driver has not been created yet');
    return { load: (module) => driver.writer.loadJobs(module), run: (name, args) => driver.writer.job(name, args) };
  }

  /**
   * The request path's one-row lookups, batched per event-loop turn on the main thread's read
   * connection (lookup-batches.ts). Undefined for ':memory:' (no read connection there).
   */
  lookups(): SqliteLookupBatches | undefined {
    const reader = this.#driver?.reader;
    if (!reader) return undefined;
    return (this.#lookups ??= new SqliteLookupBatches(reader));
  }
  #lookups: SqliteLookupBatches | undefined;

  /** Traffic to the writer thread so far (for the benchmark and tests); undefined before the driver exists. */
  writerStats(): WriterStats | undefined {
    return this.#driver?.writer.stats();
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
