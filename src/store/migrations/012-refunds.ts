// Refunds (docs/api.md "Refund") and the failure return URL.
//
// - transactions.return_url_on_failure: where a failed, cancelled or expired payment sends the
//   customer (null: returnUrl).
// - transactions.refunded_minor: the running total refunded, moved in the refund's own database
//   transaction. CHECKs make "never more than captured" and "only SUCCESS payments" hold in the
//   database itself, whatever the code does.
// - refunds: one row per refund, unique per (merchant, idempotency key).
// - outbox_events: a payment now has one result event plus one event per refund. The UNIQUE on
//   transaction_id becomes a partial unique index over result events (refund_id is null); each
//   refund has at most one event (unique refund_id).
// - journal_entries: kind 'refund' (merchant payout − amount, clearing + amount), referenced like
//   credits and debits by a unique idempotency key ('refund:<refund id>'). A separate trigger
//   checks a refund entry against its refund row, so the payment/credit rules stay untouched.
import { sql, SqliteAdapter, type Kysely } from 'kysely';
import { rebuildSqliteTable, replaceOnce } from './sqlite-rebuild.ts';

const REFUND_ENTRY =
  'ledger: a refund entry needs its refund, must debit the payout and credit clearing by exactly its amount';
const REFUNDED_RULE = sql.raw(
  "refunded_minor >= 0 and refunded_minor <= amount_minor and (refunded_minor = 0 or status = 'SUCCESS')",
);

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await addTransactionColumns(db, sqlite);
  await createRefundsTable(db);
  await allowSeveralEventsPerTransaction(db, sqlite);
  if (sqlite) await addRefundEntryKindSqlite(db);
  else await addRefundEntryKindPostgres(db);
}

async function addTransactionColumns(db: Kysely<any>, sqlite: boolean): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('return_url_on_failure', 'text').execute();
  if (sqlite) {
    await db.schema
      .alterTable('transactions')
      .addColumn('refunded_minor', 'bigint', (c) => c.notNull().defaultTo(0).check(REFUNDED_RULE))
      .execute();
  } else {
    await db.schema
      .alterTable('transactions')
      .addColumn('refunded_minor', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('transactions')
      .addCheckConstraint('transactions_refunded_within_captured', REFUNDED_RULE)
      .execute();
  }
}

async function createRefundsTable(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    // Header Idempotency-Key, body refund_reference, or derived from the content (app/refund-payment.ts).
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    // Total refunded on the payment right after this refund: a replay answers what the original did.
    .addColumn('refunded_after_minor', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text')
    // The merchant's free-text reference (`trackid` of the request; WooCommerce sends the billing e-mail).
    .addColumn('reference', 'text')
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('processor_reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('refunds_merchant_key', ['merchant_id', 'idempotency_key'])
    .addCheckConstraint('refunds_within_total', sql`refunded_after_minor >= amount_minor`)
    .execute();
  await db.schema.createIndex('refunds_transaction').on('refunds').columns(['transaction_id', 'created_at']).execute();
  await db.schema
    .createIndex('refunds_merchant_created')
    .on('refunds')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('refunds_created').on('refunds').columns(['created_at', 'id']).execute();
}

/** Outbox: several events per transaction (its result and one per refund). */
async function allowSeveralEventsPerTransaction(db: Kysely<any>, sqlite: boolean): Promise<void> {
  if (sqlite) {
    await rebuildSqliteTable(db, 'outbox_events', (create) =>
      replaceOnce(
        create,
        '"transaction_id" text not null unique references',
        '"transaction_id" text not null references',
      ),
    );
  } else {
    await sql`alter table outbox_events drop constraint outbox_events_transaction_id_key`.execute(db);
  }
  await db.schema
    .alterTable('outbox_events')
    .addColumn('refund_id', 'text', (c) => c.references('refunds.id'))
    .execute();
  await db.schema
    .createIndex('outbox_events_result_per_transaction')
    .unique()
    .on('outbox_events')
    .column('transaction_id')
    .where(sql.ref('refund_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('outbox_events_refund')
    .unique()
    .on('outbox_events')
    .column('refund_id')
    .where(sql.ref('refund_id'), 'is not', null)
    .execute();
}

/** Ledger: the refund entry kind, and the trigger that ties a refund entry to its refund. */
async function addRefundEntryKindSqlite(db: Kysely<any>): Promise<void> {
  await rebuildSqliteTable(db, 'journal_entries', (create) =>
    replaceOnce(
      replaceOnce(
        create,
        `"kind" in ('payment', 'credit', 'debit')`,
        `"kind" in ('payment', 'credit', 'debit', 'refund')`,
      ),
      `kind in ('credit', 'debit') and transaction_id is null`,
      `kind in ('credit', 'debit', 'refund') and transaction_id is null`,
    ),
  );
  await sql
    .raw(
      `create trigger journal_entries_refund_insert before insert on journal_entries when new.kind = 'refund'
         begin
           select raise(abort, '${REFUND_ENTRY}') where not exists (
             select 1 from refunds r join transactions t on t.id = r.transaction_id
             where new.idempotency_key = 'refund:' || r.id and r.merchant_id = new.merchant_id and t.status = 'SUCCESS'
               and r.amount_minor = (select sum(p.amount_minor) from postings p ` +
        `join ledger_accounts a on a.id = p.account_id
                                      where p.entry_id = new.id and a.kind = 'gateway_clearing' ` +
        `and p.currency = r.currency)
               and -r.amount_minor = (select sum(p.amount_minor) from postings p ` +
        `join ledger_accounts a on a.id = p.account_id
                                       where p.entry_id = new.id and a.kind = 'merchant_payout' ` +
        `and p.currency = r.currency));
         end`,
    )
    .execute(db);
}

async function addRefundEntryKindPostgres(db: Kysely<any>): Promise<void> {
  await sql`alter table journal_entries drop constraint journal_entries_kind_check`.execute(db);
  await sql
    .raw(
      'alter table journal_entries add constraint journal_entries_kind_check ' +
        "check (kind in ('payment', 'credit', 'debit', 'refund'))",
    )
    .execute(db);
  await sql`alter table journal_entries drop constraint journal_entries_reference_by_kind`.execute(db);
  await sql
    .raw(
      `alter table journal_entries add constraint journal_entries_reference_by_kind check (
      (kind = 'payment' and transaction_id is not null and idempotency_key is null)
      or (kind in ('credit', 'debit', 'refund') and transaction_id is null ` +
        'and idempotency_key is not null and reason is not null))',
    )
    .execute(db);
  await sql
    .raw(
      `create function journal_entries_refund_check() returns trigger language plpgsql as $$
         begin
           if not exists (
             select 1 from refunds r join transactions t on t.id = r.transaction_id
             where new.idempotency_key = 'refund:' || r.id and r.merchant_id = new.merchant_id and t.status = 'SUCCESS'
               and r.amount_minor = (select sum(p.amount_minor) from postings p ` +
        `join ledger_accounts a on a.id = p.account_id
                                      where p.entry_id = new.id and a.kind = 'gateway_clearing' ` +
        `and p.currency = r.currency)
               and -r.amount_minor = (select sum(p.amount_minor) from postings p ` +
        `join ledger_accounts a on a.id = p.account_id
                                       where p.entry_id = new.id and a.kind = 'merchant_payout' ` +
        `and p.currency = r.currency)) then
             raise exception '${REFUND_ENTRY}' using errcode = 'check_violation';
           end if;
           return new;
         end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger journal_entries_refund_insert before insert on journal_entries for each row ` +
        `when (new.kind = 'refund') execute function journal_entries_refund_check()`,
    )
    .execute(db);
}
