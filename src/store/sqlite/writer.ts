// Main-thread handle on the SQLite writer thread (sqlite-writer-worker.ts). Statements issued
// together (one burst of promise jobs) travel as ONE message and come back as one reply; the
// store jobs of one whole event-loop turn do too (the thread then commits them in groups on its
// own). Replies carry the id of the message they answer: jobs may wait on the thread while an
// interactive transaction finishes.
import { Worker } from 'node:worker_threads';
import type { SqliteOptions, SqliteResult } from './connection.ts';
import { toSqliteValue } from './connection.ts';
import type { JobCall, WriterReply, WriterRequest } from './writer-worker.ts';
import { deserializeError as deserialize } from './writer-errors.ts';

/**
 * Counts since start: messages sent to the writer thread, the statements and store jobs they carried, and the
 * groups (transactions) the jobs committed in.
 */
export type WriterStats = { messages: number; statements: number; jobs: number; groups: number };

type Waiter = { resolve: (result: any) => void; reject: (error: unknown) => void };
type Outgoing = Waiter & { sql: string; params: unknown[] };
type OutgoingJob = Waiter & JobCall;

export class SqliteWriter {
  readonly #worker: Worker;
  #outgoing: Outgoing[] = [];
  #outgoingJobs: OutgoingJob[] = [];
  /** Waiters of each message sent and not yet answered, by message id. */
  readonly #inFlight = new Map<number, Waiter[]>();
  #nextId = 1;
  #statementsFlushScheduled = false;
  #jobsFlushScheduled = false;
  /** Set once the thread cannot serve any more statements; every later call fails with it. */
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  readonly #stats: WriterStats = { messages: 0, statements: 0, jobs: 0, groups: 0 };
  #lastGroup = 0;

  constructor(options: SqliteOptions) {
    this.#worker = new Worker(new URL('./writer-worker.ts', import.meta.url), {
      workerData: options,
      // The thread runs one file and needs none of the parent's flags (some, like --input-type, would stop it).
      execArgv: [],
    });
    this.#worker.unref();
    this.#worker.on('message', (reply: WriterReply) => this.#onReply(reply));
    this.#worker.on('error', (error) =>
      this.#fail(new Error(`database connection is not open: the SQLite writer thread failed (${error.message})`)),
    );
    this.#worker.on('exit', () =>
      this.#fail(new Error('database connection is not open: the SQLite writer thread has stopped')),
    );
  }

  /** Runs one statement on the writer connection; resolves after the worker ran it (a COMMIT: after its fsync). */
  execute(sql: string, parameters: ReadonlyArray<unknown>): Promise<SqliteResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#outgoing.push({ sql, params: parameters.map(toSqliteValue), resolve, reject });
      this.#scheduleStatementsFlush();
    });
  }

  /**
   * Runs a store job (loaded with `loadJobs`) on the writer thread, committed in a group with the
   * jobs around it; resolves with its result after that group's COMMIT (its fsync), or rejects
   * with what it threw (a GatewayError keeps its tag), in which case nothing of it was written.
   */
  job<T>(name: string, args: unknown): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      this.#outgoingJobs.push({ name, args, resolve, reject });
      this.#scheduleJobsFlush();
    });
  }

  /** Makes the thread import `module` and register its exported `storeJobs`; jobs sent later can use them. */
  loadJobs(module: URL): void {
    if (this.#failure) return;
    this.#worker.postMessage({ type: 'load', module: module.href } satisfies WriterRequest);
  }

  /**
   * process.nextTick from inside promise jobs runs once the whole microtask queue has drained, so
   * every statement that concurrent work issues in this burst goes together, and an interactive
   * transaction's next statement does not wait for the event loop's check phase.
   */
  #scheduleStatementsFlush(): void {
    if (this.#statementsFlushScheduled) return;
    this.#statementsFlushScheduled = true;
    process.nextTick(() => {
      this.#statementsFlushScheduled = false;
      this.#flushStatements();
    });
  }

  /**
   * Jobs wait for the check phase (setImmediate): every request the poll phase read in this turn
   * has issued its job by then, so they all travel in one message. Flushed per burst (nextTick),
   * each request was its own message: one postMessage and one structured clone per initiation on
   * both threads, about a sixth of the gateway's CPU per initiation (docs/performance.md). A job is
   * durable work the caller waits a group commit for anyway; the wait to the end of the turn is
   * small beside it, and while the thread is still committing the previous group it costs nothing.
   */
  #scheduleJobsFlush(): void {
    if (this.#jobsFlushScheduled) return;
    this.#jobsFlushScheduled = true;
    setImmediate(() => {
      this.#jobsFlushScheduled = false;
      this.#flushJobs();
    });
  }

  #flushStatements(): void {
    const batch = this.#outgoing;
    if (batch.length === 0) return;
    this.#outgoing = [];
    if (this.#failure) return rejectAll(batch, this.#failure);
    this.#stats.statements += batch.length;
    this.#send(batch, (id) => ({ type: 'run', id, batch: batch.map(({ sql, params }) => ({ sql, params })) }));
  }

  #flushJobs(): void {
    const jobs = this.#outgoingJobs;
    if (jobs.length === 0) return;
    this.#outgoingJobs = [];
    if (this.#failure) return rejectAll(jobs, this.#failure);
    this.#stats.jobs += jobs.length;
    this.#send(jobs, (id) => ({ type: 'jobs', id, jobs: jobs.map(({ name, args }) => ({ name, args })) }));
  }

  #send(waiters: Waiter[], request: (id: number) => WriterRequest): void {
    const id = this.#nextId++;
    this.#stats.messages += 1;
    this.#inFlight.set(id, waiters);
    // Keep the process alive only while a reply is awaited; an idle store never holds it open.
    if (this.#inFlight.size === 1) this.#worker.ref();
    this.#worker.postMessage(request(id));
  }

  #onReply(reply: WriterReply): void {
    if (reply.type === 'fatal') {
      this.#fail(deserialize(reply.error));
      return;
    }
    if (reply.type === 'closed') return;
    const batch = this.#inFlight.get(reply.id);
    this.#inFlight.delete(reply.id);
    if (this.#inFlight.size === 0) this.#worker.unref();
    if (reply.group !== undefined && reply.group !== this.#lastGroup) {
      this.#lastGroup = reply.group;
      this.#stats.groups += 1;
    }
    if (!batch) return;
    reply.outcomes.forEach((outcome, i) => {
      const waiter = batch[i]!;
      if (outcome.ok) waiter.resolve(outcome.result);
      else waiter.reject(deserialize(outcome.error));
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const batch of this.#inFlight.values()) for (const waiter of batch) waiter.reject(this.#failure);
    this.#inFlight.clear();
    rejectAll([...this.#outgoing.splice(0), ...this.#outgoingJobs.splice(0)], this.#failure);
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
      this.#flushStatements();
      this.#flushJobs();
      this.#worker.ref();
      this.#worker.postMessage({ type: 'close' } satisfies WriterRequest);
      await exited;
    })();
    return this.#closed;
  }
}

function rejectAll(waiters: Waiter[], error: Error): void {
  for (const waiter of waiters) waiter.reject(error);
}
