import { sql, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ledger_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['merchant_payout', 'gateway_fee', 'gateway_clearing'])))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // A merchant's payout balance can never go below zero, whatever the code does.
    .addCheckConstraint('ledger_accounts_payout_not_negative', sql`kind <> 'merchant_payout' or balance_minor >= 0`)
    .addUniqueConstraint('ledger_accounts_owner', ['kind', 'merchant_id', 'currency'])
    .execute();

  await db.schema
    .createTable('journal_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['payment', 'credit', 'debit'])))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    // A payment posts once: the unique transaction reference stops a double posting.
    .addColumn('transaction_id', 'text', (c) => c.unique().references('transactions.id'))
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('postings')
    .addColumn('entry_id', 'text', (c) => c.notNull().references('journal_entries.id'))
    .addColumn('line_no', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor <> 0`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('postings_pk', ['entry_id', 'line_no'])
    .execute();
  await db.schema.createIndex('postings_account').on('postings').columns(['account_id', 'created_at']).execute();
}
