import { sql, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // One notification per transaction: the unique key makes a second final-state write impossible to double-notify.
    .addColumn('transaction_id', 'text', (c) => c.notNull().unique().references('transactions.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['pending', 'delivered', 'failed'])))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('series', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('outbox_events_due').on('outbox_events').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createIndex('outbox_events_merchant')
    .on('outbox_events')
    .columns(['merchant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('event_id', 'text', (c) => c.notNull().references('outbox_events.id'))
    .addColumn('attempt_no', 'integer', (c) => c.notNull())
    .addColumn('series', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull().check(sql`latency_ms >= 0`))
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_attempts_pk', ['event_id', 'attempt_no'])
    .execute();
}
