import { sql, type Kysely } from 'kysely';
import { originOf } from '../../domain/url-origin.ts';

// Claims that cost O(batch), not O(backlog):
// - `origin` groups events by endpoint; a partial index on (origin, next_attempt_at, id) over
//   pending events lets a claim hop from origin to origin (a loose index scan) and take the
//   oldest due events of each, so a saturated or dead endpoint's backlog is never scanned.
// - The old (status, next_attempt_at) due index goes. The origin index alone serves "what is due"
//   (a second, global due index tempted PostgreSQL's planner into walking it past a dead
//   endpoint's whole backlog, filtering by origin, whenever one origin's rows were older), and
//   delivered and failed events, the vast majority, are not in it at all.
// - Listings page newest-first on (created_at, id), alone or after a status or merchant filter.
// Partial indexes use the literal 'pending'; queries must say status = 'pending' literally too.
const BACKFILL_BATCH = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox_events').addColumn('origin', 'text').execute();
  for (let after = ''; ;) {
    const rows: Array<{ id: string; target_url: string }> = await db
      .selectFrom('outbox_events')
      .select(['id', 'target_url'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_BATCH)
      .execute();
    if (rows.length === 0) break;
    const byOrigin = new Map<string, string[]>();
    for (const row of rows) {
      const origin = originOf(row.target_url);
      byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), row.id]);
    }
    for (const [origin, ids] of byOrigin)
      await db.updateTable('outbox_events').set({ origin }).where('id', 'in', ids).execute();
    after = rows[rows.length - 1]!.id;
  }

  await db.schema.dropIndex('outbox_events_due').execute();
  await db.schema.dropIndex('outbox_events_merchant').execute();
  const pending = sql<boolean>`status = 'pending'`;
  await db.schema
    .createIndex('outbox_pending_origin')
    .on('outbox_events')
    .columns(['origin', 'next_attempt_at', 'id'])
    .where(pending)
    .execute();
  await db.schema.createIndex('outbox_events_created').on('outbox_events').columns(['created_at', 'id']).execute();
  await db.schema
    .createIndex('outbox_events_status_created')
    .on('outbox_events')
    .columns(['status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('outbox_events_merchant_created')
    .on('outbox_events')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
}
