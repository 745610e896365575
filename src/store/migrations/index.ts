// Ordered migrations, shared by both dialects. The Migrator takes an advisory lock on
// PostgreSQL, so several instances starting at once migrate exactly once.
import { Migrator, sql, SqliteAdapter, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as merchants from './001-merchants.ts';
import * as transactions from './002-transactions.ts';
import * as outbox from './003-outbox.ts';
import * as ledger from './004-ledger.ts';
import * as gatewayMeta from './005-gateway-meta.ts';
import * as outboxOrigin from './010-outbox-origin.ts';
import * as summedAccounts from './011-summed-accounts.ts';
import * as refunds from './012-refunds.ts';
import * as consoleTables from './013-console.ts';
import * as chainHead from './014-chain-head-per-statement.ts';
import * as processor from './015-processor.ts';
import * as payerCheck from './016-payer-check.ts';
import * as transferRefundLedger from './017-transfer-refund-ledger.ts';
import * as ledgerChecks from './018-ledger-checks-per-statement.ts';
import * as keyedIdentifiers from './019-keyed-identifiers.ts';
import * as paymentSearch from './020-payment-search.ts';

const migrations: Record<string, Migration> = {
  '001-merchants': merchants,
  '002-transactions': transactions,
  '003-outbox': outbox,
  '004-ledger': ledger,
  '005-gateway-meta': gatewayMeta,
  '010-outbox-origin': outboxOrigin,
  '011-summed-accounts': summedAccounts,
  '012-refunds': refunds,
  '013-console': consoleTables,
  '014-chain-head-per-statement': chainHead,
  '015-processor': processor,
  '016-payer-check': payerCheck,
  '017-transfer-refund-ledger': transferRefundLedger,
  '018-ledger-checks-per-statement': ledgerChecks,
  '019-keyed-identifiers': keyedIdentifiers,
  '020-payment-search': paymentSearch,
};

/**
 * Each migration, then on SQLite its pages copied back from the WAL and the WAL emptied. SQLite
 * migrations run statement by statement (no DDL transaction), so every statement appends the pages
 * it touched to the WAL, which SQLite copies back only at 1,000 pages or when the last connection
 * closes cleanly: all migrations of a new store left 1.7 MB there, enough to fill a small disk
 * before the first payment (docs/operations.md "Disk space").
 */
const checkpointed = (migration: Migration): Migration => ({
  up: async (db) => {
    await migration.up(db);
    if (db.getExecutor().adapter instanceof SqliteAdapter) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  },
});

const provider: MigrationProvider = {
  getMigrations: async () =>
    Object.fromEntries(Object.entries(migrations).map(([name, migration]) => [name, checkpointed(migration)])),
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  return migrateTo(db);
}

/** Migrates up to and including `name` (all when omitted); tests use it to build an older schema. */
export async function migrateTo(db: Kysely<any>, name?: string): Promise<string[]> {
  if (name !== undefined && !(name in migrations)) throw new Error(`no migration named ${name}`);
  const migrator = new Migrator({ db, provider });
  const { error, results } = name === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
