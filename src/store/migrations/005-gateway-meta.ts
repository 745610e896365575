import type { Kysely } from 'kysely';

// One row per fact about the deployment. The first is `secret_key_check`: a keyed hash of a
// constant under GATEWAY_SECRET_KEY, so a process started with another key can refuse to run
// (the key itself is never stored).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gateway_meta')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
