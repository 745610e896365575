// Several chained postings to one account in ONE statement (PostgreSQL completions written as sets,
// one statement for the completions of one event-loop turn: docs/ledger.md "Payments written as a
// set"). Before this, PostgreSQL moved an account row to each new posting in an AFTER ROW trigger,
// which runs only when the statement ends, while the BEFORE trigger of the next posting of the same
// statement checked the chain against that row: a multi-row INSERT with two postings to one payout
// account was refused. And a row moved once per posting keeps one dead version per posting until
// the transaction ends, which every later lookup of that row in the statement walks through.
//
// PostgreSQL only, four functions replaced:
//  - postings BEFORE INSERT checks a chained posting against the account's chain head: the
//    account row, or the newest posting beyond it, which only this same statement can have
//    written (every statement moves the row before it ends). Posting n must still carry sequence
//    head + 1 and balance head + amount; UNIQUE (account, sequence) stays.
//  - the row is moved by ONE statement-level AFTER trigger (transition table of the inserted
//    postings): each account touched goes straight to its newest chained posting, once.
//  - the account row's guard accepts a move only forward and only to its chain head: the
//    sequence grows, a posting with exactly that sequence and balance exists, none beyond it.
//    With the chain checked on every insert, the row is still always the sum of its postings.
//  - the journal entry's BEFORE INSERT checks are the same rules with the same messages, in
//    queries that look everything up by primary key (see the function).
// Unchanged: summed accounts take chainless postings only; an account starts at zero; postings
// and entries are append-only; the entry's trigger checks the sums.
//
// SQLite fires row triggers as each row is written, so its triggers already see the previous
// row's move: nothing changes there.
import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** The summed account kinds (migration 011); migration 018 reuses it. */
export const SUMMED = `('gateway_fee', 'gateway_clearing')`;
/** The ledger's refusals, word for word; migration 018 raises the same ones. */
export const MSG = {
  sealed: 'ledger: posting into an entry that is already written',
  chain: 'ledger: posting does not continue its account (sequence, running balance or currency)',
  accountMove: 'ledger: an account balance moves only by its next posting',
  accountNew: 'ledger: an account starts at zero with no postings',
  appendOnly: 'ledger: postings and journal entries are append-only',
  fewLines: 'ledger: a journal entry needs at least two postings',
  unbalanced: 'ledger: a journal entry must sum to zero per currency',
  owner: 'ledger: a payout posting must belong to the merchant of its entry',
  payment: 'ledger: a payment entry needs its SUCCESS transaction and must clear exactly its amount',
};

const raise = (message: string) => `raise exception '${message}' using errcode = 'check_violation'`;

/** PostgreSQL's trigger functions, replaced in place (SQLite's triggers already see each row as written). */
const STATEMENTS = [
  `create or replace function postings_before_insert() returns trigger language plpgsql as $$
     declare
       account record;
       head record;
       head_seq bigint;
       head_balance bigint;
     begin
       if exists (select 1 from journal_entries e where e.id = new.entry_id) then ${raise(MSG.sealed)}; end if;
       select a.kind, a.currency, a.posting_count, a.balance_minor into account from ledger_accounts a ` +
    `where a.id = new.account_id;
       if not found or account.currency <> new.currency then ${raise(MSG.chain)}; end if;
       if new.account_seq is null or new.balance_after_minor is null then
         if new.account_seq is not null or new.balance_after_minor is not null or account.kind not in ${SUMMED} ` +
    `then ${raise(MSG.chain)}; end if;
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
       if new.account_seq <> head_seq + 1 or new.balance_after_minor <> head_balance + new.amount_minor ` +
    `then ${raise(MSG.chain)}; end if;
       return new;
     end $$`,
  `create or replace function postings_move_balances() returns trigger language plpgsql as $$
     begin
       update ledger_accounts a set balance_minor = h.balance_after_minor, posting_count = h.account_seq
       from (select distinct on (n.account_id) n.account_id, n.account_seq, n.balance_after_minor
             from new_postings n where n.account_seq is not null
             order by n.account_id, n.account_seq desc) h
       where a.id = h.account_id;
       return null;
     end $$`,
  'drop trigger postings_move_balance on postings',
  'drop function postings_move_balance()',
  `create trigger postings_move_balance after insert on postings referencing new table as new_postings
       for each statement execute function postings_move_balances()`,
  `create or replace function ledger_accounts_guard() returns trigger language plpgsql as $$
     begin
       if tg_op = 'INSERT' then
         if new.balance_minor <> 0 or new.posting_count <> 0 then ${raise(MSG.accountNew)}; end if;
         return new;
       end if;
       if tg_op = 'DELETE' then ${raise(MSG.appendOnly)}; end if;
       if new.id <> old.id or new.kind <> old.kind or new.currency <> old.currency ` +
    `or new.merchant_id is distinct from old.merchant_id
          or new.posting_count <= old.posting_count
          or not exists (select 1 from postings p where p.account_id = new.id ` +
    `and p.account_seq = new.posting_count and p.balance_after_minor = new.balance_minor)
          or exists (select 1 from postings p where p.account_id = new.id and p.account_seq > new.posting_count) then
         ${raise(MSG.accountMove)};
       end if;
       return new;
     end $$`,
  // The entry checks of migration 004, unchanged (same rules, order and messages, still BEFORE
  // each entry row), in three queries whose every lookup is by primary key: the entry's postings,
  // each posting's account, the entry's transaction. The planner used to pick a merchant/status
  // index for the transaction (a scan of the merchant's SUCCESS payments) and to scan the whole
  // clearing account's postings; a completion set writes dozens of entries per statement.
  `create or replace function journal_entries_before_insert() returns trigger language plpgsql as $$
     declare
       lines bigint;
       foreign_payout boolean;
     begin
       select count(*), coalesce(bool_or(pa.kind = 'merchant_payout' and pa.merchant_id <> new.merchant_id), false)
         into lines, foreign_payout
         from postings p cross join lateral ` +
    `(select a.kind, a.merchant_id from ledger_accounts a where a.id = p.account_id offset 0) pa
         where p.entry_id = new.id;
       if lines < 2 then ${raise(MSG.fewLines)}; end if;
       if exists (select 1 from postings where entry_id = new.id group by currency having sum(amount_minor) <> 0) ` +
    `then ${raise(MSG.unbalanced)}; end if;
       if foreign_payout then ${raise(MSG.owner)}; end if;
       if new.kind = 'payment' and not coalesce((
            select t.status = 'SUCCESS' and t.merchant_id = new.merchant_id
                   and -t.amount_minor = (select sum(p.amount_minor) from postings p
                                          where p.entry_id = new.id and p.currency = t.currency
                                            and (select a.kind from ledger_accounts a where a.id = p.account_id) ` +
    `= 'gateway_clearing')
            from transactions t where t.id = new.transaction_id), false) then
         ${raise(MSG.payment)};
       end if;
       return new;
     end $$`,
];

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
