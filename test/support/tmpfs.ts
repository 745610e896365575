// A real small file system for disk-full tests: a tmpfs mounted for the test (needs root,
// CAP_SYS_ADMIN; without it `mountTmpfs` returns the reason to skip), and a filler that fills it.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Tmpfs = { dir: string; unmount(): void };

/** A tmpfs of `sizeMiB` (a decimal is fine: 2 MiB), or why none could be mounted. */
export function mountTmpfs(sizeMiB: number): Tmpfs | string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.round(sizeMiB * 1024)}k`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (error) {
    rmdirSync(dir);
    return `cannot mount a tmpfs here (needs root): ${String((error as Error).message).split('\n')[0]}`;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmdirSync(dir);
    },
  };
}

/** Fills the file system with one file until it is full; returns the file's path. */
export function fillDisk(dir: string, name = 'filler'): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  // Top up the last partial blocks too.
  const fd2 = openSync(path, 'a');
  try {
    for (;;) writeSync(fd2, Buffer.alloc(512, 1));
  } catch {
    // full
  } finally {
    closeSync(fd2);
  }
  return path;
}
