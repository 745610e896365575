// Ledger reads: balances, entries with their postings, a merchant's accounts, and the
// whole-ledger checks behind `ledger verify`. SQL only; every method may run inside a caller's
// transaction (`trx`), where a read-modify-write use case needs it.
import { sql } from 'kysely';
import {
  accountId,
  keepsRunningBalance,
  type AccountRecord,
  type AccountRef,
  type EntryKind,
  type EntryWithPostings,
  type JournalEntry,
  type PostingRecord,
} from '../../domain/ledger.ts';
import { toNumber, type Int64 } from '../database.ts';
import type { Db, Trx } from '../engine.ts';

/** Integer columns are read as text: SQLite hands out JS numbers, which are exact only to 2^53. */
const exact = (column: string) => sql<string>`cast(${sql.ref(column)} as text)`;

export class LedgerReadsRepo {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  #q(trx?: Trx): Db | Trx {
    return trx ?? this.#db;
  }

  /**
   * The balance of one account; 0 when it has never been posted to. An account that keeps a
   * running balance has it on its row; a summed account's row holds only its chained postings
   * (those written before migration 011), and its unchained postings are added on read.
   */
  async balance(ref: AccountRef, trx?: Trx): Promise<bigint> {
    const id = accountId(ref);
    const q = this.#q(trx);
    if (keepsRunningBalance(ref.kind)) {
      const row = await q
        .selectFrom('ledger_accounts')
        .select(exact('balance_minor').as('balance'))
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? BigInt(row.balance) : 0n;
    }
    const row = await q
      .selectFrom('ledger_accounts as a')
      .select(
        sql<string>`cast(a.balance_minor + coalesce((${unchainedSum(sql.ref('a.id'))}), 0) as text)`.as('balance'),
      )
      .where('a.id', '=', id)
      .executeTakeFirst();
    return row ? BigInt(row.balance) : 0n;
  }

  async findEntryByIdempotencyKey(key: string, trx?: Trx): Promise<EntryWithPostings | undefined> {
    const row = await this.#q(trx)
      .selectFrom('journal_entries')
      .selectAll()
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...entryFromRow(row), postings: await this.postingsOf([row.id], trx) };
  }

  async findEntryByTransaction(transactionId: string, trx?: Trx): Promise<EntryWithPostings | undefined> {
    const row = await this.#q(trx)
      .selectFrom('journal_entries')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...entryFromRow(row), postings: await this.postingsOf([row.id], trx) };
  }

  /** Newest first. */
  async recentEntries(merchantId: string, limit: number): Promise<EntryWithPostings[]> {
    const rows = await this.#q()
      .selectFrom('journal_entries')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    const postings = await this.postingsOf(rows.map((r) => r.id));
    return rows.map((r) => ({ ...entryFromRow(r), postings: postings.filter((p) => p.entryId === r.id) }));
  }

  async postingsOf(entryIds: string[], trx?: Trx): Promise<PostingRecord[]> {
    if (entryIds.length === 0) return [];
    const rows = await this.#q(trx)
      .selectFrom('postings as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select([
        'p.entry_id',
        'p.line_no',
        'p.account_id',
        'a.kind',
        'p.currency',
        exact('p.amount_minor').as('amount'),
        sql<string | null>`cast(p.account_seq as text)`.as('seq'),
        sql<string | null>`cast(p.balance_after_minor as text)`.as('after'),
      ])
      .where('p.entry_id', 'in', entryIds)
      .orderBy('p.entry_id')
      .orderBy('p.line_no')
      .execute();
    return rows.map((r) => ({
      entryId: r.entry_id,
      lineNo: r.line_no,
      accountId: r.account_id,
      kind: r.kind,
      currency: r.currency,
      amountMinor: BigInt(r.amount),
      accountSeq: r.seq === null ? null : BigInt(r.seq),
      balanceAfterMinor: r.after === null ? null : BigInt(r.after),
    }));
  }

  /**
   * A merchant's accounts (one per currency), or with `null` the gateway's own accounts. Balances
   * and posting counts include a summed account's unchained postings (a sum over its postings).
   */
  async accountsOf(merchantId: string | null): Promise<AccountRecord[]> {
    const summed = (column: 'amount_minor' | 'count') =>
      sql<string>`coalesce((select ${column === 'count' ? sql`count(*)` : sql`sum(u.amount_minor)`} from postings u
        where u.account_id = ledger_accounts.id and u.account_seq is null), 0)`;
    const rows = await this.#q()
      .selectFrom('ledger_accounts')
      .select([
        'id',
        'kind',
        'merchant_id',
        'currency',
        'created_at',
        sql<string>`cast(balance_minor + ${summed('amount_minor')} as text)`.as('balance'),
        sql<string>`cast(posting_count + ${summed('count')} as text)`.as('count'),
      ])
      .where('merchant_id', merchantId === null ? 'is' : '=', merchantId)
      .orderBy('currency')
      .orderBy('kind')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      merchantId: r.merchant_id,
      currency: r.currency,
      balanceMinor: BigInt(r.balance),
      postingCount: BigInt(r.count),
      createdAt: toNumber(r.created_at),
    }));
  }

  // ---- Whole-ledger checks (operator `ledger verify`, tests). Each returns the offending rows. ----

  /** (entry, currency) pairs whose postings do not sum to zero. */
  async unbalancedEntries(): Promise<Array<{ entryId: string; currency: string; sumMinor: bigint }>> {
    const rows = await this.#q()
      .selectFrom('postings')
      .select(['entry_id', 'currency', sql<string>`cast(sum(amount_minor) as text)`.as('total')])
      .groupBy(['entry_id', 'currency'])
      .having(sql<boolean>`sum(amount_minor) <> 0`)
      .execute();
    return rows.map((r) => ({ entryId: r.entry_id, currency: r.currency, sumMinor: BigInt(r.total) }));
  }

  /** Entries with fewer than two postings, and postings without an entry. */
  async malformedEntries(): Promise<string[]> {
    const few = await this.#q()
      .selectFrom('journal_entries as e')
      .leftJoin('postings as p', 'p.entry_id', 'e.id')
      .select('e.id')
      .groupBy('e.id')
      .having(sql<boolean>`count(p.entry_id) < 2`)
      .execute();
    const orphans = await this.#q()
      .selectFrom('postings as p')
      .leftJoin('journal_entries as e', 'e.id', 'p.entry_id')
      .select('p.entry_id')
      .where('e.id', 'is', null)
      .distinct()
      .execute();
    return [...few.map((r) => r.id), ...orphans.map((r) => r.entry_id)];
  }

  /**
   * Accounts whose stored row differs from what their chained postings add up to (balance, count,
   * last sequence number), and accounts that keep a running balance but have a posting without
   * one. A summed account's unchained postings are not on its row: its balance is their sum.
   */
  async balanceMismatches(): Promise<Array<{ accountId: string; storedMinor: bigint; postedMinor: bigint }>> {
    const rows = await this.#q()
      .selectFrom('ledger_accounts as a')
      .leftJoin('postings as p', 'p.account_id', 'a.id')
      .select([
        'a.id',
        exact('a.balance_minor').as('stored'),
        sql<string>`cast(coalesce(sum(case when p.account_seq is not null then p.amount_minor end), 0) as text)`.as(
          'posted',
        ),
      ])
      .groupBy(['a.id', 'a.kind', 'a.balance_minor', 'a.posting_count'])
      .having(
        sql<boolean>`a.balance_minor <> coalesce(sum(case when p.account_seq is not null then p.amount_minor end), 0)
          or a.posting_count <> count(p.account_seq) or a.posting_count <> coalesce(max(p.account_seq), 0)
          or (a.kind not in ('gateway_fee', 'gateway_clearing') and count(p.account_id) <> count(p.account_seq))`,
      )
      .execute();
    return rows.map((r) => ({ accountId: r.id, storedMinor: BigInt(r.stored), postedMinor: BigInt(r.posted) }));
  }

  async negativePayoutAccounts(): Promise<string[]> {
    const rows = await this.#q()
      .selectFrom('ledger_accounts')
      .select('id')
      .where('kind', '=', 'merchant_payout')
      .where('balance_minor', '<', 0)
      .execute();
    return rows.map((r) => r.id);
  }

  async countEntries(filter: { merchantId?: string } = {}): Promise<number> {
    let query = this.#q()
      .selectFrom('journal_entries')
      .select((eb) => eb.fn.countAll().as('n'));
    if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
    const row = await query.executeTakeFirstOrThrow();
    return toNumber(row.n as Int64);
  }
}

function unchainedSum(account: ReturnType<typeof sql.ref>) {
  return sql<string>`select sum(u.amount_minor) from postings u
    where u.account_id = ${account} and u.account_seq is null`;
}

function entryFromRow(row: {
  id: string;
  kind: EntryKind;
  merchant_id: string;
  transaction_id: string | null;
  idempotency_key: string | null;
  reason: string | null;
  created_at: Int64;
}): JournalEntry {
  return {
    id: row.id,
    kind: row.kind,
    merchantId: row.merchant_id,
    transactionId: row.transaction_id,
    idempotencyKey: row.idempotency_key,
    reason: row.reason,
    createdAt: toNumber(row.created_at),
  };
}
