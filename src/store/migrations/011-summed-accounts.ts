// Summed system accounts (docs/ledger.md "Summed accounts"): every successful payment posts to the
// gateway's fee and clearing accounts of its currency. With a running balance on those rows, every
// completion had to lock and update the same two rows, so completions queued on them one at a time
// (PostgreSQL: ~160–190/s). From here on those two kinds are *summed accounts*:
//
// - a posting to a summed account may carry no chain (account_seq and balance_after_minor are
//   both NULL); it then neither reads nor locks nor moves the account row, so completions no
//   longer wait on each other there. Their balance is the sum of their postings, computed on read;
// - a posting that does carry a chain must still continue it exactly (the chain postings written
//   before this migration stay valid history, and the account row still equals their sum);
// - merchant payout and operator adjustment accounts keep their chain on every posting: a payout
//   balance must be known under a lock to refuse an overdraft.
//
// Everything else of migration 004 is unchanged: entries balance per currency with ≥ 2 lines,
// postings and entries are append-only, a deferred foreign key refuses half-written entries, a
// payout balance cannot go below zero, an account row moves only by its next chained posting.
//
// SQLite cannot drop NOT NULL in place, so `postings` is rebuilt (the documented 12-step way, in
// one transaction); the triggers that read `postings` are dropped first and recreated after.
import { sql, SqliteAdapter, type Kysely } from 'kysely';

const SUMMED = `('gateway_fee', 'gateway_clearing')`;
const MSG = {
  sealed: 'ledger: posting into an entry that is already written',
  chain: 'ledger: posting does not continue its account (sequence, running balance or currency)',
  appendOnly: 'ledger: postings and journal entries are append-only',
};

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await db.transaction().execute((trx) => sqlite(trx));
  else await postgres(db);
}

async function sqlite(db: Kysely<any>): Promise<void> {
  const run = (statement: string) => sql.raw(statement).execute(db);
  // Triggers on other tables that read `postings`: kept verbatim, recreated after the rebuild.
  const triggers = sql<{ name: string; sql: string }>`select name, sql from sqlite_master
    where type = 'trigger' and tbl_name <> 'postings' and name in ('ledger_accounts_update', 'journal_entries_insert')`;
  const { rows } = await triggers.execute(db);
  if (rows.length !== 2) throw new Error('migration 011: the ledger triggers of migration 004 are missing');
  for (const row of rows) await run(`drop trigger ${row.name}`);
  await run(`create table postings_new (
      entry_id text not null,
      line_no integer not null check (line_no >= 1),
      account_id text not null references ledger_accounts (id),
      currency text not null,
      amount_minor bigint not null check (amount_minor <> 0),
      account_seq bigint check (account_seq >= 1),
      balance_after_minor bigint,
      created_at bigint not null,
      constraint postings_pk primary key (entry_id, line_no),
      constraint postings_entry_fk foreign key (entry_id) references journal_entries (id) deferrable initially deferred,
      constraint postings_account_chain unique (account_id, account_seq),
      constraint postings_chain_pair check ((account_seq is null) = (balance_after_minor is null)))`);
  await run(
    `insert into postings_new (entry_id, line_no, account_id, currency, amount_minor, account_seq, ` +
      `balance_after_minor, created_at)
             select entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor, ` +
      `created_at from postings`,
  );
  await run('drop table postings'); // its own triggers go with it
  await run('alter table postings_new rename to postings');
  for (const row of rows) await run(row.sql);
  const statements = [
    `create trigger postings_insert before insert on postings
     begin
       select raise(abort, '${MSG.sealed}') where exists (select 1 from journal_entries e where e.id = new.entry_id);
       select raise(abort, '${MSG.chain}') where not exists (
         select 1 from ledger_accounts a where a.id = new.account_id and a.currency = new.currency
           and ((new.account_seq is null and new.balance_after_minor is null and a.kind in ${SUMMED})
             or (a.posting_count + 1 = new.account_seq ` +
      `and a.balance_minor + new.amount_minor = new.balance_after_minor)));
     end`,
    `create trigger postings_move_balance after insert on postings when new.account_seq is not null
     begin
       update ledger_accounts set balance_minor = new.balance_after_minor, posting_count = new.account_seq ` +
      `where id = new.account_id;
     end`,
    `create trigger postings_no_update before update on postings begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger postings_no_delete before delete on postings begin select raise(abort, '${MSG.appendOnly}'); end`,
  ];
  for (const statement of statements) await run(statement);
}

async function postgres(db: Kysely<any>): Promise<void> {
  const raise = (message: string) => `raise exception '${message}' using errcode = 'check_violation'`;
  const statements = [
    `alter table postings alter column account_seq drop not null, alter column balance_after_minor drop not null,
       add constraint postings_chain_pair check ((account_seq is null) = (balance_after_minor is null))`,
    `create or replace function postings_before_insert() returns trigger language plpgsql as $$
     begin
       if exists (select 1 from journal_entries e where e.id = new.entry_id) then ${raise(MSG.sealed)}; end if;
       if not exists (select 1 from ledger_accounts a where a.id = new.account_id and a.currency = new.currency
                        and ((new.account_seq is null and new.balance_after_minor is null and a.kind in ${SUMMED})
                          or (a.posting_count + 1 = new.account_seq ` +
      `and a.balance_minor + new.amount_minor = new.balance_after_minor))) then
         ${raise(MSG.chain)};
       end if;
       return new;
     end $$`,
    'drop trigger postings_move_balance on postings',
    `create trigger postings_move_balance after insert on postings for each row when (new.account_seq is not null) ` +
      `execute function postings_move_balance()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
