// The request path's one-row lookups on SQLite (status, hosted page), answered per event-loop
// turn like PostgreSQL's (postgres/transaction-lookups.ts): the lookups the poll phase's requests
// ask for are run together in its check phase (setImmediate), on the main thread's read
// connection, with cached prepared statements, in ONE read transaction. Measured
// (docs/performance.md "SQLite reads"): answered at once, inside each request's own I/O callback,
// every status answer was written between two reads of the poll phase, and the HTTP thread spent
// about twice PostgreSQL's CPU per status query; answered per turn, no more than PostgreSQL's.
//
// Read-your-writes holds. The read transaction begins when the batch runs and ends before it
// returns, with no other code in between: it sees every commit that finished before the batch
// ran, so every write acknowledged (after its COMMIT) before a lookup was asked for.
import type { SqliteStatements } from './connection.ts';

type Lookup = {
  sql: string;
  parameters: ReadonlyArray<unknown>;
  resolve(row: unknown): void;
  reject(e: unknown): void;
};

export class SqliteLookupBatches {
  readonly #reader: SqliteStatements;
  #queued: Lookup[] = [];

  constructor(reader: SqliteStatements) {
    this.#reader = reader;
  }

  /** The first row `sql` returns (undefined for none), read in this turn's check phase. */
  first(sql: string, parameters: ReadonlyArray<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.#queued.push({ sql, parameters, resolve, reject }) === 1) setImmediate(() => this.#run());
    });
  }

  #run(): void {
    const batch = this.#queued;
    this.#queued = [];
    const db = this.#reader.db;
    // One lookup needs no explicit transaction: its statement is one already. Several share one,
    // so the WAL read lock and snapshot are taken once (about half a lone lookup's cost).
    let shared = false;
    try {
      // Both throw once the connection is closed: every lookup then fails with that error.
      shared = batch.length > 1 && !db.isTransaction;
      if (shared) db.exec('begin');
    } catch (error) {
      for (const lookup of batch) lookup.reject(error);
      return;
    }
    const outcomes = batch.map(({ sql, parameters }) => {
      try {
        return { ok: true as const, row: this.#reader.execute(sql, parameters).rows[0] };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
    // Ended before anyone resumes: no snapshot outlives the batch.
    if (shared) endReadTransaction(db);
    batch.forEach((lookup, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) lookup.resolve(outcome.row);
      else lookup.reject(outcome.error);
    });
  }
}

/** A read-only transaction has nothing to commit; should ending it fail anyway, it is rolled back. */
function endReadTransaction(db: SqliteStatements['db']): void {
  try {
    if (db.isTransaction) db.exec('commit');
  } catch {
    if (db.isTransaction) db.exec('rollback');
  }
}
