import type { Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('previous_webhook_secret_enc', 'text')
    .addColumn('previous_webhook_secret_expires_at', 'bigint')
    .addColumn('payout_currency', 'text', (c) => c.notNull())
    .addColumn('payout_account', 'text', (c) => c.notNull())
    .addColumn('fee_rate_ppm', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['active', 'disabled'])))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merchants_updated_at').on('merchants').column('updated_at').execute();
}
