// A fresh, migrated store per call: a temp SQLite file, or a new PostgreSQL database that
// is dropped again on cleanup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Store } from '../../src/app/ports/store.ts';
import { openStoreEngine, type Db, type Dialect, type StoreEngine } from '../../src/store/engine.ts';
import { storeOver } from '../../src/store/open-store.ts';
import { postgresAdminUrl } from './dialects.ts';

/**
 * `store` is what the gateway gets (the ports); `engine` and `db` let a test look at and write
 * rows directly, beside the gateway, on the same connections.
 */
export type TestStore = { store: Store; engine: StoreEngine; db: Db; databaseUrl: string; cleanup(): Promise<void> };

export async function createTestDatabase(dialect: Dialect): Promise<{ databaseUrl: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
    return {
      databaseUrl: `sqlite:${join(dir, 'gateway.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = await postgresAdminUrl();
  if (!admin) throw new Error('PostgreSQL is not reachable');
  const name = `gw_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function createTestStore(dialect: Dialect): Promise<TestStore> {
  const database = await createTestDatabase(dialect);
  const engine = openStoreEngine(database.databaseUrl);
  await engine.migrate();
  return {
    store: storeOver(engine),
    engine,
    db: engine.db,
    databaseUrl: database.databaseUrl,
    async cleanup() {
      await engine.close();
      await database.drop();
    },
  };
}
