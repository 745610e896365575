import { sql, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('trackid', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('redirect_id', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['PROCESSING', 'SUCCESS', 'FAILED'])))
    .addColumn('error_code_tag', 'text')
    .addColumn('error_text', 'text')
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('bill_country', 'text', (c) => c.notNull())
    .addColumn('bill_customerip', 'text', (c) => c.notNull())
    .addColumn('bill_email', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('server_url', 'text', (c) => c.notNull())
    .addColumn('payer_account_no', 'text', (c) => c.notNull())
    .addColumn('payer_account_name', 'text', (c) => c.notNull())
    .addColumn('payer_bank_code', 'text', (c) => c.notNull())
    .addColumn('productdesc', 'text')
    .addColumn('lang', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addUniqueConstraint('transactions_merchant_trackid', ['merchant_id', 'trackid'])
    .execute();
  // The expiry sweeper scans PROCESSING rows by deadline.
  await db.schema
    .createIndex('transactions_processing_expiry')
    .on('transactions')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('transaction_transitions')
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('from_status', 'text', (c) => c.notNull())
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('error_code_tag', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_transitions_pk', ['transaction_id', 'seq'])
    .execute();
}
