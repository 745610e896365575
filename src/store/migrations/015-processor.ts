import { sql, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

// Live payments through a processor (docs/connectors/kbank.md, docs/architecture.md "Connectors"):
// - processor_attempts: one row per processor request that creates a QR or moves money back (a
//   void), written BEFORE the request goes out, so a crash between the processor's answer and our
//   commit leaves a row the reconciler settles by inquiry. `reference` is the id the processor
//   knows the attempt by (KBank: our 15-character partnerTxnUid). The reconciler's schedule and
//   lease (one inquirer per attempt across instances) live on the row.
// - processor_notifications: every inbound notification as received (a hint, logged before it is
//   acted on), deduplicated on (connector, reference, processor_txn_no).
// - attention_items: what needs a person (a payment the processor reports paid after we
//   finalised it and could not void it, an amount that does not match, a void whose outcome is
//   unknown), one open item per (transaction, kind).
const ATTEMPT_STATES = ['pending', 'requested', 'paid', 'cancelled', 'expired', 'voided', 'not_found', 'failed'];

export async function up(db: Kysely<any>): Promise<void> {
  await createAttempts(db);
  await createNotifications(db);
  await createAttentionItems(db);
}

async function createAttempts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('processor_attempts')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['qr', 'void'])))
    .addColumn('attempt', 'integer', (c) => c.notNull().check(sql`attempt >= 1`))
    .addColumn('state', 'text', (c) => c.notNull().check(sqlIn('state', ATTEMPT_STATES)))
    .addColumn('state_at', 'bigint', (c) => c.notNull())
    .addColumn('qr_payload', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('account_name', 'text')
    .addColumn('issuer', 'text')
    .addColumn('processor_txn_no', 'text')
    .addColumn('paid_amount_minor', 'bigint')
    .addColumn('paid_at', 'bigint')
    // A void: the refund it carries out (written before the refund row exists, so no foreign key)
    // and the QR attempt it voids (the processor is asked about the payment by that reference).
    .addColumn('refund_id', 'text')
    .addColumn('parent_reference', 'text')
    .addColumn('last_error', 'text')
    .addColumn('next_check_at', 'bigint')
    .addColumn('checks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('processor_attempts_per_transaction', ['transaction_id', 'kind', 'attempt'])
    .execute();
  // The reconciler's queue: attempts with a check due, oldest due first.
  await db.schema
    .createIndex('processor_attempts_due')
    .on('processor_attempts')
    .columns(['next_check_at', 'reference'])
    .where(sql.ref('next_check_at'), 'is not', null)
    .execute();
  // A day's paid and voided attempts (the `reconcile` command).
  await db.schema.createIndex('processor_attempts_paid').on('processor_attempts').columns(['paid_at']).execute();
}

async function createNotifications(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('processor_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('source_ip', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('processor_txn_no', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    .addUniqueConstraint('processor_notifications_dedupe', ['connector', 'dedupe_key'])
    .execute();
  await db.schema
    .createIndex('processor_notifications_transaction')
    .on('processor_notifications')
    .columns(['transaction_id', 'received_at'])
    .execute();
  await db.schema
    .createIndex('processor_notifications_received')
    .on('processor_notifications')
    .columns(['received_at', 'id'])
    .execute();
}

async function createAttentionItems(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('attention_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint')
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .addColumn('resolved_by', 'text')
    .addColumn('resolution', 'text')
    .execute();
  // One open item per (transaction, kind): raising it again is a no-op.
  await db.schema
    .createIndex('attention_items_open')
    .unique()
    .on('attention_items')
    .columns(['transaction_id', 'kind'])
    .where(sql.ref('resolved_at'), 'is', null)
    .execute();
  await db.schema.createIndex('attention_items_created').on('attention_items').columns(['created_at', 'id']).execute();
}
