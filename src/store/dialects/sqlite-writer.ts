// Main-thread handle on the SQLite writer thread (sqlite-writer-worker.ts). Statements issued
// during one event-loop turn travel as ONE message and come back as one reply, so a group
// commit of many rows costs a few messages, not a few per row. The worker handles messages in
// order, so replies match the queue of batches in flight first-in first-out.
import { Worker } from 'node:worker_threads';
import type { SqliteOptions, SqliteResult } from './sqlite-connection.ts';
import { toSqliteValue } from './sqlite-connection.ts';
import type { SerializedError, WriterReply, WriterRequest } from './sqlite-writer-worker.ts';

/** Counts since start: messages sent to the writer thread and the statements they carried. */
export type WriterStats = { messages: number; statements: number };

type Waiter = { resolve: (result: SqliteResult) => void; reject: (error: unknown) => void };
type Outgoing = Waiter & { sql: string; params: unknown[] };

/** Rebuilds a worker-side error so callers see node:sqlite's message and codes (e.g. UNIQUE constraint failed). */
function deserialize(error: SerializedError): Error {
  return Object.assign(new Error(error.message), { code: error.code, errcode: error.errcode, errstr: error.errstr });
}

export class SqliteWriter {
  readonly #worker: Worker;
  #outgoing: Outgoing[] = [];
  readonly #inFlight: Waiter[][] = [];
  #flushScheduled = false;
  /** Set once the thread cannot serve any more statements; every later call fails with it. */
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  readonly #stats: WriterStats = { messages: 0, statements: 0 };

  constructor(options: SqliteOptions) {
    this.#worker = new Worker(new URL('./sqlite-writer-worker.ts', import.meta.url), {
      workerData: options,
      // The thread runs one file and needs none of the parent's flags (some, like --input-type, would stop it).
      execArgv: [],
    });
    this.#worker.unref();
    this.#worker.on('message', (reply: WriterReply) => this.#onReply(reply));
    this.#worker.on('error', (error) => this.#fail(new Error(`database connection is not open: the SQLite writer thread failed (${error.message})`)));
    this.#worker.on('exit', () => this.#fail(new Error('database connection is not open: the SQLite writer thread has stopped')));
  }

  /** Runs one statement on the writer connection; resolves after the worker ran it (a COMMIT: after its fsync). */
  execute(sql: string, parameters: ReadonlyArray<unknown>): Promise<SqliteResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#outgoing.push({ sql, params: parameters.map(toSqliteValue), resolve, reject });
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      // process.nextTick from inside promise jobs runs once the whole microtask queue has drained,
      // so every statement that concurrent work issues in this burst goes together, and a
      // transaction's next statement does not wait for the event loop's check phase.
      process.nextTick(() => this.#flush());
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#outgoing.length === 0) return;
    const batch = this.#outgoing;
    this.#outgoing = [];
    if (this.#failure) {
      for (const waiter of batch) waiter.reject(this.#failure);
      return;
    }
    this.#stats.messages += 1;
    this.#stats.statements += batch.length;
    this.#inFlight.push(batch);
    // Keep the process alive only while a reply is awaited; an idle store never holds it open.
    if (this.#inFlight.length === 1) this.#worker.ref();
    this.#worker.postMessage({ type: 'run', batch: batch.map(({ sql, params }) => ({ sql, params })) } satisfies WriterRequest);
  }

  #onReply(reply: WriterReply): void {
    if (reply.type === 'fatal') {
      this.#fail(deserialize(reply.error));
      return;
    }
    if (reply.type === 'closed') return;
    const batch = this.#inFlight.shift();
    if (this.#inFlight.length === 0) this.#worker.unref();
    if (!batch) return;
    reply.outcomes.forEach((outcome, i) => {
      const waiter = batch[i]!;
      if (outcome.ok) waiter.resolve(outcome.result);
      else waiter.reject(deserialize(outcome.error));
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const batch of this.#inFlight.splice(0)) for (const waiter of batch) waiter.reject(this.#failure);
    for (const waiter of this.#outgoing.splice(0)) waiter.reject(this.#failure);
    this.#worker.unref();
  }

  stats(): WriterStats {
    return { ...this.#stats };
  }

  /** Lets statements already sent finish, closes the connection on the writer thread and ends it. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      if (this.#failure) {
        await this.#worker.terminate();
        return;
      }
      const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
      this.#flush();
      this.#worker.ref();
      this.#worker.postMessage({ type: 'close' } satisfies WriterRequest);
      await exited;
    })();
    return this.#closed;
  }
}
