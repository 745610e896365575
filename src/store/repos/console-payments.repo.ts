// The console's reads: payment search with keyset pages, one payment with everything that
// happened to it, and a merchant's postings (page and CSV export). SQL only.
//
// Scoping is part of every query: a merchant's console passes its own id and the WHERE clause
// carries it, so another merchant's row is never read, let alone rendered (a wrong id is
// indistinguishable from an unknown one).
import type { PaymentListItem, PaymentSearch, PostingRow } from '../../app/ports/console.ts';
import { toBigInt, toNumber } from '../database.ts';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../engine.ts';
import { transactionFromRow } from './transactions.repo.ts';
import { type TransactionRecord } from '../../domain/transaction.ts';

const exact = (column: string) => sql<string>`cast(${sql.ref(column)} as text)`;

/** Where each filter reads: payment_search (its email is lowercased when written) or the payment. */
const SEARCH_COLUMNS = columnsOf('s', sql`${sql.ref('s.email')}`);
const TRANSACTION_COLUMNS = columnsOf('t', sql`lower(${sql.ref('t.bill_email')})`);

/**
 * A search the payments answer themselves: by id (primary key), or a merchant's payments with no
 * filter but dates (transactions_merchant_created, newest first). Both are current without catching up.
 */
function readsPayments(s: PaymentSearch): boolean {
  if (s.transactionId !== undefined) return true;
  const filtered =
    s.trackid !== undefined || s.email !== undefined || s.amountMinor !== undefined || s.status !== undefined;
  return s.merchantId !== undefined && !filtered;
}

function columnsOf(alias: string, email: RawBuilder<unknown>) {
  const ref = (name: string) => sql`${sql.ref(`${alias}.${name}`)}`;
  return {
    id: ref('id'),
    merchant: ref('merchant_id'),
    trackid: ref('trackid'),
    email,
    amount: ref('amount_minor'),
    status: ref('status'),
    created: ref('created_at'),
  };
}

export class ConsolePaymentsRepo {
  readonly #db: Db;
  readonly #catchUp: () => Promise<unknown>;
  /** `catchUp` brings the search table up to date (store/payment-search-index.ts). */
  constructor(db: Db, catchUp: () => Promise<unknown>) {
    this.#db = db;
    this.#catchUp = catchUp;
  }

  /**
   * Newest first. The filters read payment_search (migration 020), where each has an index
   * leading with it and ending with the keyset; caught up first, so every change committed
   * before the search is in it. A search by id, or by merchant and dates alone, reads the
   * payments themselves (by primary key; transactions_merchant_created).
   */
  async search(s: PaymentSearch): Promise<PaymentListItem[]> {
    if (!readsPayments(s)) await this.#catchUp();
    const rows = await this.searchQuery(s).execute();
    return rows.map((r) => ({
      id: r.id,
      merchantId: r.merchant_id,
      trackid: r.trackid,
      status: r.status,
      amountMinor: toBigInt(r.amount_minor),
      currency: r.currency,
      billEmail: r.bill_email,
      createdAt: toNumber(r.created_at),
      refundedMinor: toBigInt(r.refunded_minor),
    }));
  }

  /** The search as a query (the bench prints its plan with EXPLAIN). */
  searchQuery(s: PaymentSearch) {
    const direct = readsPayments(s);
    // The same filters on either source: the search row, or the payment's own row.
    const column = direct ? TRANSACTION_COLUMNS : SEARCH_COLUMNS;
    let query = direct
      ? this.#db.selectFrom('transactions as t')
      : this.#db.selectFrom('payment_search as s').innerJoin('transactions as t', 't.id', 's.id');
    const equal = (expression: RawBuilder<unknown>, value: unknown) => sql<boolean>`${expression} = ${value}`;
    if (s.transactionId !== undefined) query = query.where(equal(column.id, s.transactionId));
    if (s.merchantId !== undefined) query = query.where(equal(column.merchant, s.merchantId));
    if (s.trackid !== undefined) query = query.where(equal(column.trackid, s.trackid));
    if (s.email !== undefined) query = query.where(equal(column.email, s.email.toLowerCase()));
    if (s.amountMinor !== undefined) query = query.where(equal(column.amount, s.amountMinor));
    if (s.status !== undefined) query = query.where(equal(column.status, s.status));
    if (s.from !== undefined) query = query.where(sql<boolean>`${column.created} >= ${s.from}`);
    if (s.to !== undefined) query = query.where(sql<boolean>`${column.created} < ${s.to}`);
    if (s.before)
      query = query.where(sql<boolean>`(${column.created}, ${column.id}) < (${s.before.createdAt}, ${s.before.id})`);
    return query
      .select([
        't.id',
        't.merchant_id',
        't.trackid',
        't.status',
        't.amount_minor',
        't.currency',
        't.bill_email',
        't.created_at',
        't.refunded_minor',
      ])
      .orderBy(sql`${column.created} desc`)
      .orderBy(sql`${column.id} desc`)
      .limit(s.limit);
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
