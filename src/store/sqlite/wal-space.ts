// Space for the WAL, on the SQLite writer thread (docs/operations.md "Disk space"). SQLite
// checkpoints the WAL into the database file on its own only once the WAL holds 1,000 pages
// (4 MB); on a disk smaller than that the WAL grew until the disk was full while the database file
// stayed empty, and space freed afterwards was eaten by the WAL again within a few commits. So
// after a write fails for lack of space, every later write first tries a truncating checkpoint
// (the WAL's pages move into the database file and the WAL file shrinks to nothing) until one
// completes, which it does as soon as there is space to grow the database file; and the disk
// having run out once, the WAL is checkpointed every SMALL_DISK_WAL_PAGES pages from then on, so
// it is reused from its start long before it grows back to the size that filled the disk.
// Until that checkpoint completes the readiness probe is refused (jobs.ts writeReadinessProbe):
// a probe could still fit in the WAL's leftovers where a payment does not; and after it, the probe
// is refused unless the disk has room for it and for a payment as large after it, since a probe
// that takes the last free space proves nothing about the next payment.
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/** The WAL's checkpoint threshold, in pages (4 KB each), once the disk has run out. */
export const SMALL_DISK_WAL_PAGES = 100;

let checkpointDue = false;
let dataDir: string | undefined;

/** The writer thread's database file (':memory:' has no directory to watch). */
export function watchSpaceOf(path: string): void {
  dataDir = path === ':memory:' ? undefined : dirname(path);
}

/** Bytes free to the gateway on the data directory's file system; undefined for ':memory:' or when unreadable. */
export function dataDirFreeBytes(): number | undefined {
  if (dataDir === undefined) return undefined;
  try {
    const stats = statfsSync(dataDir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/** SQLITE_FULL (13), or an I/O error (10), which is how some writes report ENOSPC. */
export function isOutOfSpace(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | undefined)?.errcode;
  if (typeof errcode === 'number') return (errcode & 0xff) === 13 || (errcode & 0xff) === 10;
  return error instanceof Error && /database or disk is full|disk I\/O error/i.test(error.message);
}

/** A write failed for lack of space: checkpoint before the next write, and often from now on. */
export function spaceRanOut(db: DatabaseSync): void {
  if (checkpointDue) return;
  checkpointDue = true;
  try {
    db.exec(`PRAGMA wal_autocheckpoint = ${SMALL_DISK_WAL_PAGES}`);
  } catch {
    // a setting of this connection, not a write
  }
}

/** True while a write has failed for lack of space and no truncating checkpoint has completed since. */
export function checkpointPending(): boolean {
  return checkpointDue;
}

/** Before a write, while a checkpoint is due: one truncating checkpoint; it stays due until one completes. */
export function checkpointIfDue(db: DatabaseSync): void {
  if (!checkpointDue || !db.isOpen || db.isTransaction) return;
  try {
    const result = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number } | undefined;
    if (result?.busy === 0) checkpointDue = false;
  } catch {
    // still no space to grow the database file: the write that follows reports the fault
  }
}
