// The console's reads: payment search with keyset pages, one payment with everything that
// happened to it, and a merchant's postings (page and CSV export). SQL only.
//
// Scoping is part of every query: a merchant's console passes its own id and the WHERE clause
// carries it, so another merchant's row is never read, let alone rendered (a wrong id is
// indistinguishable from an unknown one).
import type { PaymentSearch, PostingRow } from '../../app/ports/console.ts';
import { sql } from 'kysely';
import type { Db } from '../engine.ts';
import { transactionFromRow } from './transactions.repo.ts';
import { type TransactionRecord } from '../../domain/transaction.ts';

const exact = (column: string) => sql<string>`cast(${sql.ref(column)} as text)`;

export class ConsolePaymentsRepo {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Newest first. Each filter has an index leading with it (migration 013). */
  async search(s: PaymentSearch): Promise<TransactionRecord[]> {
    const rows = await this.searchQuery(s).execute();
    return rows.map(transactionFromRow);
  }

  /** The search as a query (the bench prints its plan with EXPLAIN). */
  searchQuery(s: PaymentSearch) {
    let query = this.#db.selectFrom('transactions').selectAll();
    if (s.merchantId !== undefined) query = query.where('merchant_id', '=', s.merchantId);
    if (s.transactionId !== undefined) query = query.where('id', '=', s.transactionId);
    if (s.trackid !== undefined) query = query.where('trackid', '=', s.trackid);
    if (s.email !== undefined) query = query.where(sql<string>`lower(bill_email)`, '=', s.email.toLowerCase());
    if (s.amountMinor !== undefined) query = query.where('amount_minor', '=', s.amountMinor);
    if (s.status !== undefined) query = query.where('status', '=', s.status);
    if (s.from !== undefined) query = query.where('created_at', '>=', s.from);
    if (s.to !== undefined) query = query.where('created_at', '<', s.to);
    if (s.before) query = query.where(sql<boolean>`(created_at, id) < (${s.before.createdAt}, ${s.before.id})`);
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(s.limit);
  }

  /** One payment, scoped to a merchant when `merchantId` is given. */
  async find(id: string, merchantId: string | undefined): Promise<TransactionRecord | undefined> {
    let query = this.#db.selectFrom('transactions').selectAll().where('id', '=', id);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    const row = await query.executeTakeFirst();
    return row ? transactionFromRow(row) : undefined;
  }

  /**
   * Postings of one ledger account, keyset-paged on the account's chain (unique index
   * postings_account_chain): newest first before `beforeSeq`, or oldest first after `afterSeq`.
   */
  async postings(
    accountId: string,
    options: { limit: number; beforeSeq?: bigint; afterSeq?: bigint },
  ): Promise<PostingRow[]> {
    let query = this.#db
      .selectFrom('postings as p')
      .innerJoin('journal_entries as e', 'e.id', 'p.entry_id')
      // A refund's entry names no transaction (journal_entries.transaction_id is the payment's own
      // entry, unique); its refund does. The entry's key is `refund:<refund id>` (app/refund-payment.ts),
      // so the refund is found by its primary key.
      .leftJoin('refunds as r', (join) =>
        join
          .on('e.kind', '=', 'refund')
          .on(sql<boolean>`${sql.ref('r.id')} = substr(${sql.ref('e.idempotency_key')}, 8)`),
      )
      .select([
        'p.entry_id',
        'e.kind',
        sql<string | null>`coalesce(${sql.ref('e.transaction_id')}, ${sql.ref('r.transaction_id')})`.as(
          'transaction_id',
        ),
        'e.reason',
        'r.id as refund_id',
        'r.reason as refund_reason',
        'p.account_id',
        'p.currency',
        exact('p.amount_minor').as('amount'),
        exact('p.account_seq').as('seq'),
        exact('p.balance_after_minor').as('after'),
        exact('p.created_at').as('created'),
      ])
      .where('p.account_id', '=', accountId);
    if (options.beforeSeq !== undefined) query = query.where('p.account_seq', '<', options.beforeSeq.toString());
    if (options.afterSeq !== undefined) query = query.where('p.account_seq', '>', options.afterSeq.toString());
    const rows = await query
      .orderBy('p.account_seq', options.afterSeq !== undefined ? 'asc' : 'desc')
      .limit(options.limit)
      .execute();
    return rows.map((r) => ({
      entryId: r.entry_id,
      entryKind: r.kind,
      transactionId: r.transaction_id,
      reason: r.reason,
      refundId: r.refund_id,
      refundReason: r.refund_reason,
      accountId: r.account_id,
      currency: r.currency,
      amountMinor: BigInt(r.amount),
      accountSeq: BigInt(r.seq),
      balanceAfterMinor: BigInt(r.after),
      createdAt: Number(r.created),
    }));
  }
}
