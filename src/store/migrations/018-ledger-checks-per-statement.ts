// The ledger's database checks once per statement instead of once per row (PostgreSQL;
// docs/ledger.md "How the database checks run", docs/performance.md "Ledger checks per statement").
// A completion set's write spent about half its time in PL/pgSQL row triggers: one call per
// posting (chain) and one per entry (sums, owner, payment), each with its own lookups. The rules
// and their messages are those of migrations 004, 011 and 014; only when and how they run changes:
//
//  - postings: ONE statement-level AFTER INSERT trigger over the statement's new postings
//    (transition table) refuses, in set queries,
//      · a posting into an entry that is already written: its entry row exists and has postings
//        written by an earlier statement (an entry written earlier had ≥ 2 of them, checked then);
//      · a chained posting that does not continue its account: per account, the statement's
//        postings in sequence order must be the row's count + 1, + 2, … with balances the row's
//        balance + the running sum of their amounts (the row has not moved yet: this same
//        function moves it, after the check); a chainless one is allowed on summed accounts only;
//        the currency is the account's;
//    then moves each chained account's row once, to its newest posting (as migration 014 did).
//    The whole statement's postings are checked together, so a chain's head is simply the row.
//  - journal_entries: ONE statement-level AFTER INSERT trigger over the statement's new entries
//    refuses an entry with < 2 postings, one that does not sum to zero per currency, one that moves
//    another merchant's payout account, and a payment entry without its SUCCESS transaction of
//    the same merchant cleared by exactly its amount: one query, every lookup by primary key.
//    When several entries of one statement break rules, the message is the first rule in that
//    order that any of them breaks.
//  - ledger_accounts' guard (per moved row, so per account and statement): unchanged rules, its
//    two lookups made one (the newest posting at or beyond the new sequence must be exactly it).
//
// Both checks are AFTER … FOR EACH STATEMENT and not deferred: a statement that breaks a rule
// fails itself with the same message and SQLSTATE (check_violation) as before, nothing of it
// stays, and no COMMIT can find an entry unchecked. An entry's postings are still written before
// or together with its entry row (the deferred foreign key refuses postings without their entry at
// COMMIT, as before). The refund entry's trigger (migration 012) is untouched: it fires for
// refunds only.
//
// SQLite has row triggers only; its triggers already run in-process without round trips and were
// measured cheap (docs/performance.md), so they stay as they are.
import { sql, SqliteAdapter, type Kysely } from 'kysely';
// The same refusals, word for word, as the per-row triggers this replaces.
import { MSG, SUMMED } from './014-chain-head-per-statement.ts';

const raise = (message: string) => `raise exception '${message}' using errcode = 'check_violation'`;

// Every lookup below is by primary key or by the (account_id, account_seq) unique index, from a
// lateral subquery that `offset 0` keeps the planner from turning into a join over a whole table:
// the transition tables carry no statistics, and the lookups must not depend on the tables' size.
const STATEMENTS = [
  'drop trigger postings_insert on postings',
  'drop function postings_before_insert()',
  'drop trigger postings_move_balance on postings',
  'drop function postings_move_balances()',
  'drop trigger journal_entries_insert on journal_entries',
  'drop function journal_entries_before_insert()',
  `create function postings_check_statement() returns trigger language plpgsql as $$
     declare
       broken int;
     begin
       select case
         when exists (
           select 1 from (select n.entry_id, count(*) as lines from new_postings n group by n.entry_id) n
           where (select count(*) from postings p where p.entry_id = n.entry_id) > n.lines
             and exists (select 1 from journal_entries e where e.id = n.entry_id)) then 1
         when exists (
           select 1 from (
             select n.currency, n.account_seq, n.balance_after_minor, a.kind, a.currency as account_currency,
                    a.posting_count + row_number() over w as next_seq,
                    a.balance_minor + sum(n.amount_minor) over w as next_balance
             from new_postings n
             left join lateral (select a.kind, a.currency, a.posting_count, a.balance_minor from ledger_accounts a
                                where a.id = n.account_id offset 0) a on true
             window w as (partition by n.account_id, n.account_seq is null order by n.account_seq
                          rows between unbounded preceding and current row)) c
           where c.kind is null or c.account_currency <> c.currency
              or (c.account_seq is null and (c.balance_after_minor is not null or c.kind not in ${SUMMED}))
              or (c.account_seq is not null and (c.balance_after_minor is null or c.account_seq <> c.next_seq
                                                 or c.balance_after_minor <> c.next_balance))) then 2
       end into broken;
       if broken = 1 then ${raise(MSG.sealed)}; end if;
       if broken = 2 then ${raise(MSG.chain)}; end if;
       -- Checked just above: each row goes straight to its newest posting (its guard checks the move).
       update ledger_accounts a set balance_minor = h.balance_after_minor, posting_count = h.account_seq
       from (select distinct on (n.account_id) n.account_id, n.account_seq, n.balance_after_minor
             from new_postings n where n.account_seq is not null
             order by n.account_id, n.account_seq desc) h
       where a.id = h.account_id;
       return null;
     end $$`,
  `create trigger postings_check after insert on postings referencing new table as new_postings
     for each statement execute function postings_check_statement()`,
  `create function journal_entries_check_statement() returns trigger language plpgsql as $$
     declare
       broken int;
     begin
       select min(case
                when s.lines < 2 then 1
                when s.unbalanced then 2
                when s.foreign_payout then 3
                when s.kind = 'payment' and not coalesce(s.status = 'SUCCESS' and s.tx_merchant = s.merchant_id
                                                         and -s.amount_minor = s.cleared, false) then 4
              end) into broken
       from (
         select e.kind, e.merchant_id, t.status, t.merchant_id as tx_merchant, t.amount_minor,
                coalesce(sum(c.lines), 0) as lines,
                coalesce(bool_or(c.total <> 0), false) as unbalanced,
                coalesce(bool_or(c.foreign_payout), false) as foreign_payout,
                sum(c.cleared) filter (where c.currency = t.currency) as cleared
         from new_entries e
         left join lateral (select t.status, t.merchant_id, t.amount_minor, t.currency from transactions t
                            where t.id = e.transaction_id offset 0) t on true
         left join lateral (
           select p.currency, count(*) as lines, sum(p.amount_minor) as total,
                  sum(p.amount_minor) filter (where pa.kind = 'gateway_clearing') as cleared,
                  bool_or(pa.kind = 'merchant_payout' and pa.merchant_id <> e.merchant_id) as foreign_payout
           from postings p
           cross join lateral (select a.kind, a.merchant_id from ledger_accounts a
                               where a.id = p.account_id offset 0) pa
           where p.entry_id = e.id
           group by p.currency) c on true
         group by e.id, e.kind, e.merchant_id, t.status, t.merchant_id, t.amount_minor, t.currency) s;
       if broken = 1 then ${raise(MSG.fewLines)}; end if;
       if broken = 2 then ${raise(MSG.unbalanced)}; end if;
       if broken = 3 then ${raise(MSG.owner)}; end if;
       if broken = 4 then ${raise(MSG.payment)}; end if;
       return null;
     end $$`,
  `create trigger journal_entries_check after insert on journal_entries referencing new table as new_entries
     for each statement execute function journal_entries_check_statement()`,
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
          or not coalesce((select p.account_seq = new.posting_count and p.balance_after_minor = new.balance_minor
                           from postings p where p.account_id = new.id and p.account_seq >= new.posting_count
                           order by p.account_seq desc limit 1), false) then
         ${raise(MSG.accountMove)};
       end if;
       return new;
     end $$`,
];

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
