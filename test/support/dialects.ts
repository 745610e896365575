// Which stores a test run covers: TEST_DATABASE=sqlite|postgres|all (default all).
// PostgreSQL missing: a failure in CI (CI=true), a skip with a reason on a laptop.
import pg from 'pg';
import type { Dialect } from '../../src/store/engine.ts';

const ADMIN_URLS = [
  process.env.TEST_PG_ADMIN_URL,
  'postgres://postgres@127.0.0.1:5432/postgres',
  'postgres://root@127.0.0.1:5432/postgres',
].filter((u): u is string => Boolean(u));

let adminUrl: Promise<string | undefined> | undefined;

/** The first admin URL that answers, or undefined. */
export function postgresAdminUrl(): Promise<string | undefined> {
  adminUrl ??= (async () => {
    for (const url of ADMIN_URLS) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
      try {
        await client.connect();
        await client.query('select 1');
        return url;
      } catch {
        // try the next role
      } finally {
        await client.end().catch(() => {});
      }
    }
    return undefined;
  })();
  return adminUrl;
}

export type DialectCase = { dialect: Dialect; skip: string | false };

export async function testDialects(): Promise<DialectCase[]> {
  const wanted = (process.env.TEST_DATABASE ?? 'all').toLowerCase();
  if (!['sqlite', 'postgres', 'all'].includes(wanted))
    throw new Error(`TEST_DATABASE must be sqlite, postgres or all (got ${wanted})`);
  const cases: DialectCase[] = [];
  if (wanted !== 'postgres') cases.push({ dialect: 'sqlite', skip: false });
  if (wanted !== 'sqlite') {
    const url = await postgresAdminUrl();
    if (!url && process.env.CI === 'true')
      throw new Error(
        'CI=true but PostgreSQL is not reachable on 127.0.0.1:5432 ' +
          '(users postgres/root): the PostgreSQL suites must run in CI.',
      );
    cases.push({
      dialect: 'postgres',
      skip: url
        ? false
        : 'PostgreSQL is not reachable on 127.0.0.1:5432 as postgres or root; set TEST_PG_ADMIN_URL to run these',
    });
  }
  return cases;
}

/** The PostgreSQL case for a PostgreSQL-only test file; skipped, with the reason, when TEST_DATABASE leaves it out. */
export async function postgresCase(): Promise<DialectCase> {
  const found = (await testDialects()).find((d) => d.dialect === 'postgres');
  return found ?? { dialect: 'postgres', skip: 'TEST_DATABASE selects SQLite only' };
}
