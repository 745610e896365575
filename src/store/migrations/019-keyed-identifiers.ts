// Keyed token and redirect id (domain/keyed-ids.ts; docs/architecture.md "Identifiers"). A new
// payment's token and redirect id carry its transaction id and a MAC: the hosted page finds the
// payment by checking the MAC and reading the row by primary key, and nothing looks a token up.
// So neither column keeps its UNIQUE index, whose two B-trees every initiation's INSERT used to
// maintain (docs/performance.md "Keyed identifiers").
//
// Ids issued before this migration are random strings that carry nothing (32 characters for a
// redirect id; keyed ids are always 44). Their pages must keep opening, so one PARTIAL unique
// index covers exactly those rows, `length(redirect_id) <> 44`: it is built here over the rows
// that exist, and a new row (44 characters) never enters it, so an initiation pays only the
// predicate. The lookup by an old id (store/repos/transactions.repo.ts findByLegacyRedirectId)
// repeats the predicate word for word so both databases use this index. No row is rewritten:
// a customer may still hold a link with an old id. Tokens need nothing: none is ever looked up.
import { sql, SqliteAdapter, type Kysely } from 'kysely';
import { rebuildSqliteTable, replaceOnce } from './sqlite-rebuild.ts';

/** The rows whose redirect id is of the form issued before this migration (not a keyed id). */
export const LEGACY_REDIRECT_ID = 'length(redirect_id) <> 44';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // The UNIQUEs are inline in migration 002's CREATE TABLE: SQLite rebuilds the table.
    await rebuildSqliteTable(db, 'transactions', (create) =>
      replaceOnce(
        replaceOnce(create, '"token" text not null unique,', '"token" text not null,'),
        '"redirect_id" text not null unique,',
        '"redirect_id" text not null,',
      ),
    );
  } else {
    await sql`alter table transactions drop constraint transactions_token_key`.execute(db);
    await sql`alter table transactions drop constraint transactions_redirect_id_key`.execute(db);
  }
  await sql`create unique index transactions_legacy_redirect_id on transactions (redirect_id)
    where ${sql.raw(LEGACY_REDIRECT_ID)}`.execute(db);
}
