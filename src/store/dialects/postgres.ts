// PostgreSQL through `pg` (pure JS). BIGINT columns arrive as strings; repositories
// convert them with BigInt()/Number() so money never passes through a float.
import pg from 'pg';
import { PostgresDialect } from 'kysely';

export function createPostgresPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000 });
  // A client losing its server must not crash the process, whether it is idle in the pool
  // ('error' on the pool) or checked out by a request (its own 'error'); the query that was
  // using it fails and the request answers 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
