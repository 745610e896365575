// The console's payment search moves to its own table, written behind the commit
// (docs/architecture.md "Payment search"; docs/performance.md "Console search indexes").
//
// Before: transactions carried seven indexes for the console's filters, and every initiation's
// INSERT (and every completion's UPDATE of `status`) maintained all of them inside the request's
// commit. Now:
// - transactions keeps the indexes the API needs: (merchant_id, trackid) unique, the expiry scan
//   (status, expires_at), a merchant's payments newest first (merchant_id, created_at, id); and
//   019's partial index, which a new row never enters. Six indexes go.
// - payment_search holds, per payment, what the console filters on (merchant, trackid, e-mail
//   lowercased, amount, state, creation time) with six of the seven indexes migration 013 had, so
//   every filter still reads an index that leads with it and ends with the page's keyset, except
//   a merchant's payments by date alone, which transactions' own (merchant_id, created_at, id) serves.
// - payment_search_queue: a trigger adds a payment's id when it is inserted or its state changes,
//   in the same commit (one append to a table whose only B-tree is its integer key). The indexer
//   (store/repos/payment-search.repo.ts) moves queued ids into payment_search in batches, reading
//   the current row, and deletes them in the same transaction: a crash leaves them queued, never lost.
//
// A state changes once, from PROCESSING to final (transactions.repo.ts completes only PROCESSING
// rows), which is what lets indexers of several instances apply batches in any order: a search
// row's state moves only away from PROCESSING (see the repository).
import { sql, SqliteAdapter, type Kysely } from 'kysely';

const SEARCH_INDEXES: Array<[name: string, columns: string[]]> = [
  ['payment_search_created', ['created_at', 'id']],
  ['payment_search_status_created', ['status', 'created_at', 'id']],
  // A merchant's own payments in one state (a merchant's rows are a small part of status_created).
  ['payment_search_merchant_status_created', ['merchant_id', 'status', 'created_at', 'id']],
  ['payment_search_trackid', ['trackid', 'created_at', 'id']],
  ['payment_search_amount', ['amount_minor', 'created_at', 'id']],
  ['payment_search_email', ['email', 'created_at', 'id']],
];

/** Migration 013's console indexes on transactions that payment_search replaces. */
const DROPPED_TRANSACTION_INDEXES = [
  'transactions_created',
  'transactions_status_created',
  'transactions_merchant_status_created',
  'transactions_trackid',
  'transactions_amount',
  'transactions_email',
];

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('payment_search')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('trackid', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  for (const [name, columns] of SEARCH_INDEXES)
    await db.schema.createIndex(name).on('payment_search').columns(columns).execute();

  // SQLite: `integer primary key` is the rowid, the table's one B-tree. PostgreSQL: an identity.
  await db.schema
    .createTable('payment_search_queue')
    .addColumn('seq', sqlite ? 'integer' : 'bigint', (c) =>
      sqlite ? c.primaryKey() : c.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .execute();
  if (sqlite) await sqliteTriggers(db);
  else {
    await postgresTriggers(db);
    // Every row is deleted soon after it is added: vacuum it by a fixed count of dead rows, not a
    // share of a table that is nearly always empty, so a look at the queue never walks a long
    // run of dead index entries.
    await sql`alter table payment_search_queue set (autovacuum_vacuum_scale_factor = 0,
      autovacuum_vacuum_threshold = 10000)`.execute(db);
  }

  // Every existing payment, searchable at once; then the indexes it replaces go.
  await sql`insert into payment_search (id, merchant_id, trackid, email, amount_minor, status, created_at)
    select id, merchant_id, trackid, lower(bill_email), amount_minor, status, created_at from transactions`.execute(db);
  for (const name of DROPPED_TRANSACTION_INDEXES) await db.schema.dropIndex(name).execute();
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  await sql`create trigger transactions_search_insert after insert on transactions
    begin insert into payment_search_queue (transaction_id) values (new.id); end`.execute(db);
  await sql`create trigger transactions_search_status after update of status on transactions
    when new.status is not old.status
    begin insert into payment_search_queue (transaction_id) values (new.id); end`.execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql`create function payment_search_enqueue() returns trigger language plpgsql as $$
    begin
      insert into payment_search_queue (transaction_id) values (new.id);
      return null;
    end $$`.execute(db);
  await sql`create trigger transactions_search_insert after insert on transactions
    for each row execute function payment_search_enqueue()`.execute(db);
  await sql`create trigger transactions_search_status after update of status on transactions
    for each row when (new.status is distinct from old.status) execute function payment_search_enqueue()`.execute(db);
}
