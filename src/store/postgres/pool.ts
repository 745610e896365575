// PostgreSQL through `pg` (pure JS). BIGINT columns arrive as strings; repositories
// convert them with BigInt()/Number() so money never passes through a float.
import pg from 'pg';
import { PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { isConnectionLost } from '../store-unavailable.ts';

export function createPostgresPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000 });
  // A client losing its server must not crash the process, whether it is idle in the pool
  // ('error' on the pool) or checked out by a request (its own 'error'); the query that was
  // using it fails and the request answers 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Kysely's driver releases a client to the pool without saying whether it broke. When the
 * backend is terminated, the client can still look usable at that moment and the pool would
 * hand the dead connection to the next request (which then fails too). So a client on which a
 * query failed with a connection-loss error is released as broken: the pool discards it.
 */
function discardingBrokenClients(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let lost = false;
      const query = ((...args: unknown[]) => {
        const result = (client.query as (...a: unknown[]) => unknown)(...args);
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            if (isConnectionLost(error)) lost = true;
            throw error;
          });
        }
        return result;
      }) as PostgresPoolClient['query'];
      return { query, release: () => client.release(lost ? new Error('connection lost') : undefined) };
    },
    end: () => pool.end(),
  };
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool: discardingBrokenClients(pool) });
}
