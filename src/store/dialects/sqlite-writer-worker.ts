// The SQLite writer thread. It owns the connection that writes, so a commit's WAL write and
// fsync block this thread, never the HTTP event loop. The main thread sends the statements of
// one event-loop turn as one message (sqlite-writer.ts); they run here in order and the reply
// carries one result per statement, in the same order. A failing statement fails only itself:
// transaction control (BEGIN/COMMIT/ROLLBACK) is sent by the main thread like any statement.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite, SqliteStatements, type SqliteOptions, type SqliteResult } from './sqlite-connection.ts';

export type WriterRequest = { type: 'run'; batch: Array<{ sql: string; params: unknown[] }> } | { type: 'close' };
export type SerializedError = { message: string; code?: unknown; errcode?: unknown; errstr?: unknown };
export type WriterOutcome = { ok: true; result: SqliteResult } | { ok: false; error: SerializedError };
export type WriterReply = { type: 'results'; outcomes: WriterOutcome[] } | { type: 'fatal'; error: SerializedError } | { type: 'closed' };

function serialize(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { message: String(error) };
  const e = error as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  return { message: e.message, code: e.code, errcode: e.errcode, errstr: e.errstr };
}

const port = parentPort;
if (!port) throw new Error('sqlite-writer-worker.ts must run as a worker thread');

let statements: SqliteStatements | undefined;
try {
  statements = new SqliteStatements(openSqlite(workerData as SqliteOptions));
} catch (error) {
  port.postMessage({ type: 'fatal', error: serialize(error) } satisfies WriterReply);
}

port.on('message', (request: WriterRequest) => {
  if (request.type === 'close') {
    if (statements?.db.isOpen) statements.db.close();
    port.postMessage({ type: 'closed' } satisfies WriterReply);
    port.close();
    return;
  }
  const outcomes: WriterOutcome[] = [];
  for (const { sql, params } of request.batch) {
    try {
      if (!statements) throw new Error('database connection is not open');
      outcomes.push({ ok: true, result: statements.execute(sql, params) });
    } catch (error) {
      outcomes.push({ ok: false, error: serialize(error) });
    }
  }
  port.postMessage({ type: 'results', outcomes } satisfies WriterReply);
});
