// Ledger accounts, journal entries and postings: SQL only. The stored balance of each
// account is updated in the same transaction as its postings.
import { sql } from 'kysely';
import { accountId, type AccountRef, type PostingLine } from '../domain/ledger.ts';
import { toBigInt } from './database.ts';
import type { Db, Trx } from './open-store.ts';

export type JournalEntry = {
  id: string;
  kind: 'payment' | 'credit' | 'debit';
  merchantId: string;
  transactionId: string | null;
  idempotencyKey: string | null;
  reason: string | null;
  createdAt: number;
};

export class LedgerRepo {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async ensureAccount(trx: Trx, ref: AccountRef, now: number): Promise<string> {
    const id = accountId(ref);
    await trx
      .insertInto('ledger_accounts')
      .values({ id, kind: ref.kind, merchant_id: ref.merchantId, currency: ref.currency, balance_minor: 0n, created_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return id;
  }

  /** Inserts the entry and its postings and moves the balances; the CHECK constraint refuses a negative payout balance. */
  async post(trx: Trx, entry: JournalEntry, lines: PostingLine[]): Promise<void> {
    await trx
      .insertInto('journal_entries')
      .values({
        id: entry.id,
        kind: entry.kind,
        merchant_id: entry.merchantId,
        transaction_id: entry.transactionId,
        idempotency_key: entry.idempotencyKey,
        reason: entry.reason,
        created_at: entry.createdAt,
      })
      .execute();
    let lineNo = 0;
    for (const line of lines) {
      const id = await this.ensureAccount(trx, line.account, entry.createdAt);
      await trx
        .insertInto('postings')
        .values({ entry_id: entry.id, line_no: ++lineNo, account_id: id, currency: line.account.currency, amount_minor: line.amountMinor, created_at: entry.createdAt })
        .execute();
      await trx
        .updateTable('ledger_accounts')
        .set({ balance_minor: sql`balance_minor + ${line.amountMinor}` })
        .where('id', '=', id)
        .execute();
    }
  }

  async balance(ref: AccountRef, trx?: Trx): Promise<bigint> {
    const row = await (trx ?? this.#db)
      .selectFrom('ledger_accounts')
      .select('balance_minor')
      .where('id', '=', accountId(ref))
      .executeTakeFirst();
    return row ? toBigInt(row.balance_minor) : 0n;
  }
}
