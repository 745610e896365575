// The double-entry ledger (docs/ledger.md). The database itself enforces the ledger's
// invariants, so a bug in the code (or a hand-written UPDATE) cannot break them:
//
// - postings are append-only and each continues its account's chain: posting n of an
//   account carries balance_after = balance_after(n − 1) + amount; the account row is moved
//   by the posting's own trigger and refuses any other change, so a stored balance is always
//   the sum of its postings (checked in O(1) per posting, not by re-summing);
// - an entry's postings are written first and the entry row last; inserting the entry checks
//   that its postings sum to zero per currency, and a deferred foreign key refuses to commit
//   postings without their entry, so no unbalanced or half-written entry can ever commit;
// - a merchant payout balance below zero fails a CHECK;
// - an idempotency key and a transaction post at most once (UNIQUE).
import { sql, SqliteAdapter, type Kysely } from 'kysely';
import { sqlIn } from './sql-in.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await createAccounts(db);
  await createEntries(db);
  await createPostings(db);
  if (db.getExecutor().adapter instanceof SqliteAdapter) await sqliteTriggers(db);
  else await postgresTriggers(db);
}

async function createAccounts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ledger_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sqlIn('kind', ['merchant_payout', 'gateway_fee', 'gateway_clearing', 'operator_adjustment'])),
    )
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`length(currency) = 3 and upper(currency) = currency`))
    .addColumn('balance_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    // Sequence number of the account's latest posting (0: none yet).
    .addColumn('posting_count', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`posting_count >= 0`),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // A merchant's payout balance can never go below zero, whatever the code does.
    .addCheckConstraint('ledger_accounts_payout_not_negative', sql`kind <> 'merchant_payout' or balance_minor >= 0`)
    .addCheckConstraint(
      'ledger_accounts_owner_by_kind',
      sql.raw(
        "(kind = 'merchant_payout' and merchant_id is not null) " +
          "or (kind <> 'merchant_payout' and merchant_id is null)",
      ),
    )
    .execute();
  await db.schema
    .createIndex('ledger_accounts_merchant')
    .on('ledger_accounts')
    .columns(['merchant_id', 'currency'])
    .execute();
}

async function createEntries(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('journal_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['payment', 'credit', 'debit'])))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    // A payment posts once: the unique transaction reference stops a double posting.
    .addColumn('transaction_id', 'text', (c) => c.unique().references('transactions.id'))
    // An operator's request posts once, whoever retries it.
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint(
      'journal_entries_reference_by_kind',
      sql.raw(
        `(kind = 'payment' and transaction_id is not null and idempotency_key is null)
          or (kind in ('credit', 'debit') and transaction_id is null ` +
          'and idempotency_key is not null and reason is not null)',
      ),
    )
    .execute();
  await db.schema
    .createIndex('journal_entries_merchant')
    .on('journal_entries')
    .columns(['merchant_id', 'created_at'])
    .execute();
}

async function createPostings(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('postings')
    .addColumn('entry_id', 'text', (c) => c.notNull())
    .addColumn('line_no', 'integer', (c) => c.notNull().check(sql`line_no >= 1`))
    .addColumn('account_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor <> 0`))
    .addColumn('account_seq', 'bigint', (c) => c.notNull().check(sql`account_seq >= 1`))
    .addColumn('balance_after_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('postings_pk', ['entry_id', 'line_no'])
    // Postings are written before their entry; the reference is checked at COMMIT.
    .addForeignKeyConstraint('postings_entry_fk', ['entry_id'], 'journal_entries', ['id'], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .addUniqueConstraint('postings_account_chain', ['account_id', 'account_seq'])
    .execute();
}

const MSG = {
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

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const statements = [
    `create trigger ledger_accounts_insert before insert on ledger_accounts
     when new.balance_minor <> 0 or new.posting_count <> 0
     begin select raise(abort, '${MSG.accountNew}'); end`,
    `create trigger ledger_accounts_update before update on ledger_accounts
     when new.id <> old.id or new.kind <> old.kind or new.currency <> old.currency ` +
      `or new.merchant_id is not old.merchant_id
       or new.posting_count <> old.posting_count + 1
       or not exists (select 1 from postings p where p.account_id = new.id and p.account_seq = new.posting_count ` +
      `and p.balance_after_minor = new.balance_minor)
     begin select raise(abort, '${MSG.accountMove}'); end`,
    `create trigger ledger_accounts_delete before delete on ledger_accounts
     begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger postings_insert before insert on postings
     begin
       select raise(abort, '${MSG.sealed}') where exists (select 1 from journal_entries e where e.id = new.entry_id);
       select raise(abort, '${MSG.chain}') where not exists (
         select 1 from ledger_accounts a where a.id = new.account_id and a.currency = new.currency
           and a.posting_count + 1 = new.account_seq and a.balance_minor + new.amount_minor = new.balance_after_minor);
     end`,
    `create trigger postings_move_balance after insert on postings
     begin
       update ledger_accounts set balance_minor = new.balance_after_minor, posting_count = new.account_seq ` +
      `where id = new.account_id;
     end`,
    `create trigger postings_no_update before update on postings begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger postings_no_delete before delete on postings begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger journal_entries_no_update before update on journal_entries ` +
      `begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger journal_entries_no_delete before delete on journal_entries ` +
      `begin select raise(abort, '${MSG.appendOnly}'); end`,
    `create trigger journal_entries_insert before insert on journal_entries
     begin
       select raise(abort, '${MSG.fewLines}') where (select count(*) from postings where entry_id = new.id) < 2;
       select raise(abort, '${MSG.unbalanced}') where exists (
         select 1 from postings where entry_id = new.id group by currency having sum(amount_minor) <> 0);
       select raise(abort, '${MSG.owner}') where exists (
         select 1 from postings p join ledger_accounts a on a.id = p.account_id
         where p.entry_id = new.id and a.kind = 'merchant_payout' and a.merchant_id <> new.merchant_id);
       select raise(abort, '${MSG.payment}') where new.kind = 'payment' and not exists (
         select 1 from transactions t
         where t.id = new.transaction_id and t.status = 'SUCCESS' and t.merchant_id = new.merchant_id
           and -t.amount_minor = (select sum(p.amount_minor) from postings p ` +
      `join ledger_accounts a on a.id = p.account_id
                                   where p.entry_id = new.id and a.kind = 'gateway_clearing' ` +
      `and p.currency = t.currency));
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  const raise = (message: string) => `raise exception '${message}' using errcode = 'check_violation'`;
  const statements = [
    `create function ledger_accounts_guard() returns trigger language plpgsql as $$
     begin
       if tg_op = 'INSERT' then
         if new.balance_minor <> 0 or new.posting_count <> 0 then ${raise(MSG.accountNew)}; end if;
         return new;
       end if;
       if tg_op = 'DELETE' then ${raise(MSG.appendOnly)}; end if;
       if new.id <> old.id or new.kind <> old.kind or new.currency <> old.currency ` +
      `or new.merchant_id is distinct from old.merchant_id
          or new.posting_count <> old.posting_count + 1
          or not exists (select 1 from postings p where p.account_id = new.id ` +
      `and p.account_seq = new.posting_count and p.balance_after_minor = new.balance_minor) then
         ${raise(MSG.accountMove)};
       end if;
       return new;
     end $$`,
    `create trigger ledger_accounts_guard before insert or update or delete on ledger_accounts for each row ` +
      `execute function ledger_accounts_guard()`,
    `create function postings_before_insert() returns trigger language plpgsql as $$
     begin
       if exists (select 1 from journal_entries e where e.id = new.entry_id) then ${raise(MSG.sealed)}; end if;
       if not exists (select 1 from ledger_accounts a where a.id = new.account_id and a.currency = new.currency
                        and a.posting_count + 1 = new.account_seq ` +
      `and a.balance_minor + new.amount_minor = new.balance_after_minor) then
         ${raise(MSG.chain)};
       end if;
       return new;
     end $$`,
    `create trigger postings_insert before insert on postings for each row execute function postings_before_insert()`,
    `create function postings_move_balance() returns trigger language plpgsql as $$
     begin
       update ledger_accounts set balance_minor = new.balance_after_minor, posting_count = new.account_seq ` +
      `where id = new.account_id;
       return null;
     end $$`,
    `create trigger postings_move_balance after insert on postings for each row ` +
      `execute function postings_move_balance()`,
    `create function ledger_append_only() returns trigger language plpgsql as $$
     begin ${raise(MSG.appendOnly)}; end $$`,
    `create trigger postings_append_only before update or delete on postings for each row ` +
      `execute function ledger_append_only()`,
    `create trigger journal_entries_append_only before update or delete on journal_entries for each row ` +
      `execute function ledger_append_only()`,
    `create function journal_entries_before_insert() returns trigger language plpgsql as $$
     begin
       if (select count(*) from postings where entry_id = new.id) < 2 then ${raise(MSG.fewLines)}; end if;
       if exists (select 1 from postings where entry_id = new.id group by currency having sum(amount_minor) <> 0) ` +
      `then ${raise(MSG.unbalanced)}; end if;
       if exists (select 1 from postings p join ledger_accounts a on a.id = p.account_id
                  where p.entry_id = new.id and a.kind = 'merchant_payout' and a.merchant_id <> new.merchant_id) ` +
      `then ${raise(MSG.owner)}; end if;
       if new.kind = 'payment' and not exists (
            select 1 from transactions t
            where t.id = new.transaction_id and t.status = 'SUCCESS' and t.merchant_id = new.merchant_id
              and -t.amount_minor = (select sum(p.amount_minor) from postings p ` +
      `join ledger_accounts a on a.id = p.account_id
                                      where p.entry_id = new.id and a.kind = 'gateway_clearing' ` +
      `and p.currency = t.currency)) then
         ${raise(MSG.payment)};
       end if;
       return new;
     end $$`,
    `create trigger journal_entries_insert before insert on journal_entries for each row ` +
      `execute function journal_entries_before_insert()`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
