import { sql, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

// The web console (docs/console.md): operator accounts, merchants' console passwords, console
// sessions, the audit log, and the indexes behind the console's payment search.
//
// - Passwords people choose are stored as scrypt hashes with their parameters and salt
//   (domain/console-password.ts); an operator's TOTP secret is sealed like a webhook secret.
// - A session row is keyed by an HMAC of the cookie's token, never the token itself, so a
//   copy of the database does not let anyone log in.
// - Merchants' console passwords live in their own table, not in `merchants`: the API
//   password (a generated bearer secret, HMAC-hashed) and the human one stay apart.
// - Payment search: every filter the console offers has an index that leads with it and ends
//   with (created_at, id), the keyset of its newest-first pages, so page N costs page 1.
export async function up(db: Kysely<any>): Promise<void> {
  await createConsoleTables(db);
  await createPaymentSearchIndexes(db);
}

async function createConsoleTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_operators')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret_enc', 'text')
    // The last TOTP time step accepted: a code is good once (RFC 6238 §5.2).
    .addColumn('totp_last_step', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['active', 'disabled'])))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('console_merchant_passwords')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('console_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull().check(sqlIn('role', ['operator', 'merchant'])))
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  // Ending every session of a disabled operator or merchant.
  await db.schema
    .createIndex('console_sessions_subject')
    .on('console_sessions')
    .columns(['role', 'subject_id'])
    .execute();
  await db.schema.createIndex('console_sessions_last_seen').on('console_sessions').column('last_seen_at').execute();

  await db.schema
    .createTable('console_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_role', 'text', (c) =>
      c.notNull().check(sqlIn('actor_role', ['operator', 'merchant', 'cli', 'anonymous'])),
    )
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('remote_addr', 'text')
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('console_audit_at').on('console_audit').columns(['at', 'id']).execute();
}

async function createPaymentSearchIndexes(db: Kysely<any>): Promise<void> {
  // Payment search (see the console's search in store/repos/console-payments.repo.ts).
  await db.schema.createIndex('transactions_created').on('transactions').columns(['created_at', 'id']).execute();
  await db.schema
    .createIndex('transactions_merchant_created')
    .on('transactions')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_status_created')
    .on('transactions')
    .columns(['status', 'created_at', 'id'])
    .execute();
  // A merchant's own payments in one state (a merchant's rows are a small part of status_created).
  await db.schema
    .createIndex('transactions_merchant_status_created')
    .on('transactions')
    .columns(['merchant_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_trackid')
    .on('transactions')
    .columns(['trackid', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_amount')
    .on('transactions')
    .columns(['amount_minor', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_email')
    .on('transactions')
    .expression(sql`lower(bill_email), created_at, id`)
    .execute();
}
