// The SQLite database holds payers' names, account numbers and e-mails: the gateway creates it, its
// WAL and shared-memory files, and the directory it makes for them, for the owner alone
// (docs/deployment.md "Files and permissions").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStoreEngine } from '../../../src/store/engine.ts';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

test('a new database, its WAL and shared memory are 0600 and a directory the gateway creates is 0700', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gw-modes-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const previous = process.umask(0o022); // the usual umask, under which files used to be 0644
  t.after(() => process.umask(previous));
  const dir = join(root, 'data');
  const path = join(dir, 'gateway.db');

  const engine = openStoreEngine(`sqlite:${path}`);
  try {
    await engine.migrate();
    assert.equal(modeOf(dir), '700', 'the data directory');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      assert.ok(existsSync(file), `${file} exists while the store is open`);
      assert.equal(modeOf(file), '600', file);
    }
  } finally {
    await engine.close();
  }
});

test('an existing directory and database keep their modes', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gw-modes-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o750);
  const path = join(root, 'gateway.db');
  writeFileSync(path, '');
  chmodSync(path, 0o640);
  const engine = openStoreEngine(`sqlite:${path}`);
  try {
    await engine.migrate();
  } finally {
    await engine.close();
  }
  assert.equal(modeOf(root), '750');
  assert.equal(modeOf(path), '640');
});
