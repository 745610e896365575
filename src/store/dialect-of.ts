// Which SQL dialect a Kysely handle speaks, from its adapter: code that receives only a handle
// (a store job on the SQLite writer thread, a repository) can still pick dialect-specific SQL.
import { SqliteAdapter, type Kysely } from 'kysely';
import type { Dialect } from './engine.ts';

export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}
