// One `serve` per SQLite file. A SQLite gateway is one process: its writer thread is the only
// writer and its delivery worker the only sender (docs/deployment.md, "One machine (SQLite)"). A
// second `serve` on the same file would start a second writer and a second delivery worker, so
// `serve` holds `<database>.lock`, created exclusively with its pid inside, and a second one
// refuses to start naming the file and that pid. The CLI takes no lock: it works beside a running
// server (its writes are short transactions, and SQLite's own locking orders them).
//
// A lock whose pid is not running (the server was killed, the machine restarted) is stale and is
// taken over. The takeover moves the file aside with one rename, so of two processes taking over
// at once only one moves the stale file; one that finds it moved a live holder's lock puts it back.
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export type ServeLock = { file: string; release(): void };

/** A second `serve` on one SQLite file: the message names the file and the running process. */
export class ServeLockHeldError extends Error {
  constructor(database: string, lockFile: string, pid: number) {
    super(
      `Another gateway (pid ${pid}) is already serving the SQLite database ${database}: one SQLite file ` +
        'takes one `serve` (two would be two writers and two delivery workers). Stop that process, or ' +
        `give this one another DATABASE_URL. The CLI may run beside it. If pid ${pid} is not a gateway, ` +
        `remove ${lockFile} and start again.`,
    );
    this.name = 'ServeLockHeldError';
  }
}

/**
 * Takes the serve lock of the SQLite database in `databaseUrl`; undefined for PostgreSQL (any
 * number of instances may share it) and an in-memory SQLite database. Throws ServeLockHeldError.
 */
export function acquireServeLock(databaseUrl: string, pid = process.pid): ServeLock | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === ':memory:') return undefined;
  const database = resolve(path);
  const file = `${database}.lock`;
  mkdirSync(dirname(database), { recursive: true, mode: 0o700 }); // as the store creates it (store/engine.ts)
  for (let tries = 0; tries < 5; tries += 1) {
    try {
      writeFileSync(file, `${pid}\n`, { flag: 'wx', mode: 0o600 });
      return { file, release: () => release(file, pid) };
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    const holder = pidIn(file);
    if (holder !== undefined && holder !== pid && running(holder)) throw new ServeLockHeldError(database, file, holder);
    takeOverStale(database, file, holder, pid);
  }
  throw new Error(`Could not take the lock ${file}: it keeps changing; is another gateway starting?`);
}

/** Moves a stale lock aside; a lock that turns out to be a live holder's is put back and refused. */
function takeOverStale(database: string, file: string, stale: number | undefined, pid: number): void {
  const aside = `${file}.stale-${pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return; // another process moved it first: try again
    throw error;
  }
  const moved = pidIn(aside);
  if (moved !== stale && moved !== undefined && moved !== pid && running(moved)) {
    try {
      linkSync(aside, file); // back where it was, unless a new lock exists already
    } finally {
      unlinkSync(aside);
    }
    throw new ServeLockHeldError(database, file, moved);
  }
  unlinkSync(aside);
}

/** Removes the lock if it is still this process's. */
function release(file: string, pid: number): void {
  if (pidIn(file) !== pid) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function pidIn(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
