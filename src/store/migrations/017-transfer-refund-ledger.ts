// Refunds paid by bank transfer in the ledger (docs/ledger.md "Postings of each event", docs/api.md
// "Refunds the processor cannot make"). The processor did not refund such a payment, so its
// settlement still holds the whole payment, and clearing (−(payments) + (processor refunds)) must
// not move. Who sent the transfer decides the rest:
// - refunds.transfer_paid_by: 'gateway' (the operator paid it out of the merchant's funds the
//   gateway holds: payout − amount, operator_adjustment + amount) or 'merchant' (paid from the
//   merchant's own account: no entry at all); null exactly for a refund at the processor (a CHECK).
//   Bank-transfer refunds recorded before this migration posted against the payout, so they are
//   taken as paid by the gateway.
// - the refund entry's trigger (migration 012) is replaced: a refund entry must debit the payout by
//   exactly its amount and credit clearing (a processor refund) or operator_adjustment (a bank
//   transfer the gateway paid) by exactly its amount, with no other posting; a transfer the
//   merchant paid has no entry. Entries written before stay as they are (postings are append-only).
import { sql, SqliteAdapter, type Kysely } from 'kysely';
import { rebuildSqliteTable, replaceOnce } from './sqlite-rebuild.ts';

const REFUND_ENTRY =
  'ledger: a refund entry needs its refund, must debit the payout by exactly its amount and credit ' +
  'clearing (a processor refund) or operator_adjustment (a bank transfer the gateway paid) by exactly its amount';

// `is not null` first: a CHECK that comes out NULL passes, and `null in (…)` is NULL.
const PAID_BY_RULE =
  "(processor = 'bank_transfer' and transfer_paid_by is not null and transfer_paid_by in ('gateway', 'merchant')) " +
  "or (processor <> 'bank_transfer' and transfer_paid_by is null)";

/**
 * True when the entry `new` matches its refund row; the same SQL on both databases. The credited
 * kind follows the refund: clearing at the processor, operator_adjustment for a transfer the
 * gateway paid; a transfer the merchant paid matches no entry.
 */
const ENTRY_MATCHES_REFUND = `exists (
  select 1 from refunds r join transactions t on t.id = r.transaction_id
  where new.idempotency_key = 'refund:' || r.id and r.merchant_id = new.merchant_id and t.status = 'SUCCESS'
    and (r.processor <> 'bank_transfer' or r.transfer_paid_by = 'gateway')
    and -r.amount_minor = (select sum(p.amount_minor) from postings p join ledger_accounts a on a.id = p.account_id
                           where p.entry_id = new.id and a.kind = 'merchant_payout' and p.currency = r.currency)
    and r.amount_minor = (select sum(p.amount_minor) from postings p join ledger_accounts a on a.id = p.account_id
                          where p.entry_id = new.id and p.currency = r.currency and a.kind =
                            case when r.processor = 'bank_transfer' then 'operator_adjustment'
                                 else 'gateway_clearing' end)
    and not exists (select 1 from postings p join ledger_accounts a on a.id = p.account_id
                    where p.entry_id = new.id and (p.currency <> r.currency or a.kind not in ('merchant_payout',
                      case when r.processor = 'bank_transfer' then 'operator_adjustment'
                           else 'gateway_clearing' end))))`;

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema.alterTable('refunds').addColumn('transfer_paid_by', 'text').execute();
  await db
    .updateTable('refunds')
    .set({ transfer_paid_by: 'gateway' })
    .where('processor', '=', 'bank_transfer')
    .execute();
  if (sqlite) {
    await rebuildSqliteTable(db, 'refunds', (create) =>
      replaceOnce(create, '"transfer_paid_by" text', `"transfer_paid_by" text check (${PAID_BY_RULE})`),
    );
    await sql`drop trigger journal_entries_refund_insert`.execute(db);
    await sql
      .raw(
        `create trigger journal_entries_refund_insert before insert on journal_entries when new.kind = 'refund'
           begin
             select raise(abort, '${REFUND_ENTRY}') where not ${ENTRY_MATCHES_REFUND};
           end`,
      )
      .execute(db);
  } else {
    await sql.raw(`alter table refunds add constraint refunds_transfer_paid_by check (${PAID_BY_RULE})`).execute(db);
    // The trigger (migration 012) calls the function by name: replacing it replaces the rule.
    await sql
      .raw(
        `create or replace function journal_entries_refund_check() returns trigger language plpgsql as $$
           begin
             if not ${ENTRY_MATCHES_REFUND} then
               raise exception '${REFUND_ENTRY}' using errcode = 'check_violation';
             end if;
             return new;
           end $$`,
      )
      .execute(db);
  }
}
