// PostgreSQL through `pg` (pure JS). BIGINT columns arrive as strings; repositories
// convert them with BigInt()/Number() so money never passes through a float.
import pg from 'pg';
import { PostgresDialect } from 'kysely';

export function createPostgresPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return pool;
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
