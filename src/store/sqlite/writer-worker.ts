// The SQLite writer thread. It owns the connection that writes, so a commit's WAL write and
// fsync block this thread, never the HTTP event loop. Two kinds of work arrive here:
//   - `run`: statements sent by the main thread one event-loop turn at a time (interactive
//     transactions, whose BEGIN/COMMIT the main thread sends like any statement, and autocommit
//     writes). They run in order; a failing statement fails only itself.
//   - `jobs`: self-contained units of work (store/sqlite/jobs.ts), e.g. an initiation's insert or
//     a whole completion. This thread commits them in groups: every `jobs` message already
//     waiting when a group starts joins it, so they share one BEGIN … COMMIT and one fsync, and
//     the main thread never waits for a group to finish before sending the next work. A job that
//     throws is undone alone and its neighbours still commit (see runGroup). A job's reply is
//     sent only after its group's COMMIT returned: after the fsync.
// While an interactive transaction is open, `jobs` messages wait here (they must not join it)
// and run as soon as it ends; the interactive transaction's own statements go first.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import { openSqlite, SqliteStatements, type SqliteOptions, type SqliteResult } from './connection.ts';
import { isStoreUnavailable } from '../store-unavailable.ts';
import { serializeError, type SerializedError } from './writer-errors.ts';
import { checkpointIfDue, isOutOfSpace, spaceRanOut, watchSpaceOf } from './wal-space.ts';

export type JobCall = { name: string; args: unknown };
export type WriterRequest =
  | { type: 'run'; id: number; batch: Array<{ sql: string; params: unknown[] }> }
  | { type: 'jobs'; id: number; jobs: JobCall[] }
  | { type: 'load'; module: string }
  | { type: 'close' };
export type WriterOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: SerializedError };
export type WriterReply =
  | {
      type: 'results';
      id: number;
      outcomes: WriterOutcome[];
      /** Jobs: the number of the group (transaction) they committed in. */ group?: number;
    }
  | { type: 'fatal'; error: SerializedError }
  | { type: 'closed' };

type Job = (db: Kysely<any>, args: any) => Promise<unknown>;

const port = parentPort;
if (!port) throw new Error('sqlite-writer-worker.ts must run as a worker thread');

let statements: SqliteStatements | undefined;
watchSpaceOf((workerData as SqliteOptions).path);
try {
  statements = new SqliteStatements(openSqlite(workerData as SqliteOptions));
} catch (error) {
  port.postMessage({ type: 'fatal', error: serializeError(error) } satisfies WriterReply);
}

function run(sql: string, params: ReadonlyArray<unknown>): SqliteResult {
  if (!statements) throw new Error('database connection is not open');
  try {
    return statements.execute(sql, params);
  } catch (error) {
    if (isOutOfSpace(error)) spaceRanOut(statements.db);
    throw error;
  }
}

/** Kysely over this thread's connection for jobs: every statement runs at once, inside the group's transaction. */
class JobDriver implements Driver {
  readonly #connection: DatabaseConnection = {
    executeQuery: async <R>(compiled: CompiledQuery) => run(compiled.sql, compiled.parameters) as QueryResult<R>,
    streamQuery: () => {
      throw new Error('streaming is not supported in a store job');
    },
  };
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('a store job runs inside its group’s transaction and cannot open another');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const jobDb = new Kysely<any>({
  dialect: {
    createDriver: () => new JobDriver(),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  },
});
const registry = new Map<string, Job>();

async function load(module: string): Promise<void> {
  const jobs = ((await import(module)) as { storeJobs?: Record<string, Job> }).storeJobs;
  if (!jobs) throw new Error(`${module} exports no storeJobs`);
  for (const [name, job] of Object.entries(jobs)) registry.set(name, job);
}

function runStatements(request: Extract<WriterRequest, { type: 'run' }>): void {
  const outcomes: WriterOutcome<SqliteResult>[] = [];
  for (const { sql, params } of request.batch) {
    if (statements) checkpointIfDue(statements.db);
    try {
      outcomes.push({ ok: true, result: run(sql, params) });
    } catch (error) {
      outcomes.push({ ok: false, error: serializeError(error) });
    }
  }
  port!.postMessage({ type: 'results', id: request.id, outcomes } satisfies WriterReply);
}

type Attempt =
  | { kind: 'committed'; results: unknown[] }
  | { kind: 'job failed'; index: number; error: unknown }
  | { kind: 'store failed'; error: unknown };

/** One try at committing `calls` in one transaction; any failure rolls all of it back. */
async function attempt(calls: JobCall[]): Promise<Attempt> {
  if (statements) checkpointIfDue(statements.db);
  try {
    run('begin immediate', []);
  } catch (error) {
    return { kind: 'store failed', error };
  }
  const results: unknown[] = [];
  for (let index = 0; index < calls.length; index++) {
    const { name, args } = calls[index]!;
    try {
      const job = registry.get(name);
      if (!job) throw new Error(`unknown store job '${name}'`);
      results.push(await job(jobDb, args));
    } catch (error) {
      if (statements?.db.isTransaction) run('rollback', []);
      return isStoreUnavailable(error) ? { kind: 'store failed', error } : { kind: 'job failed', index, error };
    }
  }
  try {
    run('commit', []);
  } catch (error) {
    // SQLITE_FULL or IOERR at COMMIT: nothing of the group is durable.
    if (statements?.db.isTransaction) run('rollback', []);
    return { kind: 'store failed', error };
  }
  return { kind: 'committed', results };
}

let groups = 0;

/**
 * Runs the jobs of several messages in one transaction; replies to each message after the COMMIT.
 * A job that throws is left out and the others run again from the start in a new transaction:
 * that is what running them one by one in that order gives (the failed one changed nothing), and
 * it costs nothing when no job fails — unlike a SAVEPOINT per job, which makes SQLite copy every
 * page a job touches to its statement journal (half the writer's throughput here). A store
 * failure (disk full, I/O error) fails every job still in the group.
 */
async function runGroup(requests: Array<Extract<WriterRequest, { type: 'jobs' }>>): Promise<void> {
  const group = ++groups;
  const outcomes: WriterOutcome[][] = requests.map((r) => new Array<WriterOutcome>(r.jobs.length));
  let pending = requests.flatMap((request, r) => request.jobs.map((call, j) => ({ call, r, j })));
  while (pending.length > 0) {
    const tried = await attempt(pending.map((p) => p.call));
    if (tried.kind === 'committed') {
      pending.forEach((p, i) => (outcomes[p.r]![p.j] = { ok: true, result: tried.results[i] }));
      break;
    }
    const failed: WriterOutcome = { ok: false, error: serializeError(tried.error) };
    if (tried.kind === 'store failed') {
      for (const p of pending) outcomes[p.r]![p.j] = failed;
      break;
    }
    const out = pending[tried.index]!;
    outcomes[out.r]![out.j] = failed;
    pending = pending.filter((_, i) => i !== tried.index);
  }
  requests.forEach((request, i) =>
    port!.postMessage({ type: 'results', id: request.id, outcomes: outcomes[i]!, group } satisfies WriterReply),
  );
}

const queue: WriterRequest[] = [];
let draining = false;

function pullWaiting(): void {
  for (let next = receiveMessageOnPort(port!); next; next = receiveMessageOnPort(port!))
    queue.push(next.message as WriterRequest);
}

/** Handles queued requests in arrival order, except that jobs wait while an interactive transaction is open. */
async function drain(): Promise<void> {
  if (draining) return;
  draining = true;
  try {
    for (;;) {
      pullWaiting();
      const interactiveOpen = statements?.db.isOpen === true && statements.db.isTransaction;
      const index = interactiveOpen ? queue.findIndex((r) => r.type !== 'jobs') : 0;
      if (index < 0 || queue.length === 0) return;
      const request = queue[index]!;
      if (request.type === 'jobs') {
        // Every jobs message waiting now joins this group (they are all at the front: index 0).
        const group: Array<Extract<WriterRequest, { type: 'jobs' }>> = [];
        while (queue[0]?.type === 'jobs') group.push(queue.shift() as Extract<WriterRequest, { type: 'jobs' }>);
        await runGroup(group);
        continue;
      }
      queue.splice(index, 1);
      if (request.type === 'run') runStatements(request);
      else if (request.type === 'load') {
        try {
          await load(request.module);
        } catch (error) {
          port!.postMessage({ type: 'fatal', error: serializeError(error) } satisfies WriterReply);
        }
      } else {
        if (statements?.db.isOpen) statements.db.close();
        port!.postMessage({ type: 'closed' } satisfies WriterReply);
        port!.close();
        return;
      }
    }
  } finally {
    draining = false;
  }
}

port.on('message', (request: WriterRequest) => {
  queue.push(request);
  void drain();
});
