// A throw-away PostgreSQL database on 127.0.0.1:5432 for `npm run bench -- --postgres`,
// dropped again when the run ends (also after a failure); or a throw-away SQLite file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.ts';

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type BenchDatabase = { url: string; drop(): Promise<void> };

export async function createBenchDatabase(): Promise<BenchDatabase> {
  const admin = new URL(ADMIN_URL);
  if (admin.hostname !== '127.0.0.1') throw new Error('the benchmark only uses PostgreSQL on 127.0.0.1');
  const name = `gw_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `--postgres: PostgreSQL is not reachable at ${ADMIN_URL} (set ` +
        `BENCH_PG_ADMIN_URL): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh database of either store for one bench run: a SQLite file in a temp folder, or createBenchDatabase(). */
export async function benchDatabase(store: 'sqlite' | 'postgres'): Promise<BenchDatabase> {
  if (store === 'postgres') return createBenchDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  return { url: `sqlite:${join(dir, 'gateway.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The configuration of a gateway started inside a bench process over `databaseUrl`: a fresh key,
 * any free port, no demo merchant, no per-merchant rate limit in the way; `overrides` on top.
 */
export function benchGatewayConfig(databaseUrl: string, overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    CREATE_DEMO_MERCHANT: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MERCHANT_PER_SECOND: '100000',
    ...overrides,
  });
}
