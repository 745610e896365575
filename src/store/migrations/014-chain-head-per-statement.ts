// Several chained postings to one account in ONE statement (issue 14, PostgreSQL completions in
// sets). PostgreSQL runs AFTER ROW triggers when the statement ends, so the trigger that moves an
// account row to its newest posting (postings_move_balance) has not run yet when the BEFORE
// trigger of the next posting of the same statement checks the chain against that row: a
// multi-row INSERT with two postings to one payout account was refused. Completions written as a
// set (one statement for the completions of one event-loop turn) need exactly that.
//
// From here the BEFORE trigger checks each chained posting against the account's chain head:
// the account row, or a posting beyond it that this same statement already inserted (such a
// posting exists only until the statement's AFTER triggers move the row; any posting of another
// statement has moved it already). Nothing else changes: posting n must still carry sequence
// n = head + 1 and balance_after = head balance + amount (UNIQUE (account, sequence) too), the
// AFTER triggers still move the row one posting at a time in insertion order (the row's own
// guard still accepts only "next posting" steps), summed accounts still take chainless postings
// only, and the entry's trigger still checks the sums.
//
// SQLite fires row triggers as each row is written, so its triggers already see the previous
// row's move: nothing to change there.
import { sql, SqliteAdapter, type Kysely } from 'kysely';

const SUMMED = `('gateway_fee', 'gateway_clearing')`;
const MSG = {
  sealed: 'ledger: posting into an entry that is already written',
  chain: 'ledger: posting does not continue its account (sequence, running balance or currency)',
};

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  const raise = (message: string) => `raise exception '${message}' using errcode = 'check_violation'`;
  await sql
    .raw(
      `create or replace function postings_before_insert() returns trigger language plpgsql as $$
     declare
       account record;
       head record;
       head_seq bigint;
       head_balance bigint;
     begin
       if exists (select 1 from journal_entries e where e.id = new.entry_id) then ${raise(MSG.sealed)}; end if;
       select a.kind, a.currency, a.posting_count, a.balance_minor into account from ledger_accounts a where a.id = new.account_id;
       if not found or account.currency <> new.currency then ${raise(MSG.chain)}; end if;
       if new.account_seq is null or new.balance_after_minor is null then
         if new.account_seq is not null or new.balance_after_minor is not null or account.kind not in ${SUMMED} then ${raise(MSG.chain)}; end if;
         return new;
       end if;
       head_seq := account.posting_count;
       head_balance := account.balance_minor;
       -- A posting beyond the row: written earlier by this statement, its AFTER trigger still pending.
       select p.account_seq, p.balance_after_minor into head from postings p
         where p.account_id = new.account_id and p.account_seq > account.posting_count
         order by p.account_seq desc limit 1;
       if found then
         head_seq := head.account_seq;
         head_balance := head.balance_after_minor;
       end if;
       if new.account_seq <> head_seq + 1 or new.balance_after_minor <> head_balance + new.amount_minor then ${raise(MSG.chain)}; end if;
       return new;
     end $$`,
    )
    .execute(db);
}
