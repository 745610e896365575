// Ledger accounts, journal entries and postings: SQL only. The rules live in domain/ledger.ts;
// the database triggers of migrations 004 and 011 enforce the same invariants a second time.
//
// Posting order inside the caller's transaction: create missing accounts (one multi-row INSERT …
// ON CONFLICT DO NOTHING) and lock the accounts that keep a running balance in one global order
// (account id) so that concurrent entries cannot deadlock (lockAccounts); the caller plans the
// postings from the locked balances (domain/ledger.ts planPostings); then the postings go in (one
// multi-row INSERT; their trigger moves the chained balances) and the entry last (its trigger
// checks that the postings balance): insertPlanned. Summed accounts (fee, clearing) are never
// locked or read.
import { sql } from 'kysely';
import {
  accountId,
  keepsRunningBalance,
  type AccountKind,
  type AccountRef,
  type AccountState,
  type AccountRecord,
  type EntryKind,
  type EntryWithPostings,
  type JournalEntry,
  type PostingRecord,
  type PlannedPosting,
  type PostingLine,
} from '../../domain/ledger.ts';
import { toNumber, type Int64 } from '../database.ts';
import type { Db, Trx } from '../engine.ts';
import { dialectOf } from '../dialect-of.ts';

/** Integer columns are read as text: SQLite hands out JS numbers, which are exact only to 2^53. */
const exact = (column: string) => sql<string>`cast(${sql.ref(column)} as text)`;

export class LedgerRepo {
  readonly #db: Db;
  readonly #lockRows: boolean;
  constructor(db: Db) {
    this.#db = db;
    // SQLite transactions already hold the one write lock (BEGIN IMMEDIATE); PostgreSQL needs row locks.
    this.#lockRows = dialectOf(db) === 'postgres';
  }

  #q(trx?: Trx): Db | Trx {
    return trx ?? this.#db;
  }

  async ensureAccount(trx: Trx, ref: AccountRef, now: number): Promise<string> {
    await this.#ensureAccounts(trx, [ref], now);
    return accountId(ref);
  }

  /** Creates the accounts that do not exist yet, in one statement. */
  async #ensureAccounts(trx: Trx, refs: AccountRef[], now: number): Promise<void> {
    if (refs.length === 0) return;
    await this.#q(trx)
      .insertInto('ledger_accounts')
      .values(
        refs.map((ref) => ({
          id: accountId(ref),
          kind: ref.kind,
          merchant_id: ref.merchantId,
          currency: ref.currency,
          balance_minor: 0n,
          posting_count: 0n,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /**
   * Creates missing accounts and locks those that keep a running balance, in account-id order,
   * until the transaction ends. Summed accounts (fee, clearing) are created but neither read nor
   * locked: nothing about them needs to be known before posting, so payments never wait there.
   * Returns the states of the locked accounts.
   */
  async lockAccounts(trx: Trx, refs: AccountRef[], now: number): Promise<Map<string, AccountState>> {
    const byId = new Map(refs.map((r) => [accountId(r), r]));
    const ids = [...byId.keys()].sort();
    await this.#ensureAccounts(
      trx,
      ids.map((id) => byId.get(id)!),
      now,
    );
    const chained = ids.filter((id) => keepsRunningBalance(byId.get(id)!.kind));
    const states = new Map<string, AccountState>();
    if (chained.length === 0) return states;
    let query = this.#q(trx)
      .selectFrom('ledger_accounts')
      .select(['id', 'kind', 'currency', exact('balance_minor').as('balance'), exact('posting_count').as('count')])
      .where('id', 'in', chained)
      .orderBy('id');
    // PostgreSQL locks the rows as the sorted result emits them: the same global order everywhere.
    if (this.#lockRows) query = query.forUpdate();
    for (const row of await query.execute()) {
      states.set(row.id, {
        id: row.id,
        kind: row.kind,
        currency: row.currency,
        balanceMinor: BigInt(row.balance),
        postingCount: BigInt(row.count),
      });
    }
    return states;
  }

  /**
   * Inserts one entry whose postings were planned from the locked accounts (lockAccounts, then
   * domain/ledger.ts planPostings): postings first, the entry last (its trigger checks that they
   * balance).
   */
  async insertPlanned(trx: Trx, entry: JournalEntry, planned: readonly PlannedPosting[]): Promise<void> {
    const rows = planned.map((p) => ({
      entry_id: entry.id,
      line_no: p.lineNo,
      account_id: p.accountId,
      currency: p.currency,
      amount_minor: p.amountMinor,
      account_seq: p.accountSeq,
      balance_after_minor: p.balanceAfterMinor,
      created_at: entry.createdAt,
    }));
    // One statement even with two chained lines on one account: PostgreSQL moves the row only in
    // the AFTER triggers at the statement's end, and its posting trigger checks each line against
    // the chain head, which may be a line of this same statement (migration 014).
    await this.#q(trx).insertInto('postings').values(rows).execute();
    await this.#insertEntry(trx, entry);
  }

  /**
   * Inserts one entry that only credits chained accounts or posts to summed ones (a payment's
   * completion: nothing to refuse, so nothing to plan from the balances): each chained line
   * continues its account's chain in SQL, from the row as it is after the line before it. On
   * PostgreSQL the chained accounts are locked first, in account-id order.
   */
  async insertContinuingChains(trx: Trx, entry: JournalEntry, lines: readonly PostingLine[]): Promise<void> {
    const db = this.#q(trx);
    await this.lockAccounts(
      trx,
      lines.map((l) => l.account),
      entry.createdAt,
    );
    for (const [index, line] of lines.entries()) {
      const id = accountId(line.account);
      const lineNo = index + 1;
      if (keepsRunningBalance(line.account.kind)) {
        await sql`insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor, created_at)
          select ${entry.id}, ${lineNo}, a.id, a.currency, ${line.amountMinor}, a.posting_count + 1, a.balance_minor + ${line.amountMinor}, ${entry.createdAt}
          from ledger_accounts a where a.id = ${id}`.execute(db);
      } else {
        await db
          .insertInto('postings')
          .values({
            entry_id: entry.id,
            line_no: lineNo,
            account_id: id,
            currency: line.account.currency,
            amount_minor: line.amountMinor,
            account_seq: null,
            balance_after_minor: null,
            created_at: entry.createdAt,
          })
          .execute();
      }
    }
    await this.#insertEntry(trx, entry);
  }

  async #insertEntry(trx: Trx, entry: JournalEntry): Promise<void> {
    await this.#q(trx)
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
      sql<string>`coalesce((select ${column === 'count' ? sql`count(*)` : sql`sum(u.amount_minor)`} from postings u where u.account_id = ledger_accounts.id and u.account_seq is null), 0)`;
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

/** The sum of a summed account's unchained postings (the part of its balance not on its row). */
function unchainedSum(account: ReturnType<typeof sql.ref>) {
  return sql<string>`select sum(u.amount_minor) from postings u where u.account_id = ${account} and u.account_seq is null`;
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

/** A UNIQUE constraint refused the write (PostgreSQL 23505; SQLite's constraint message). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || /UNIQUE constraint failed/i.test(error.message);
}
