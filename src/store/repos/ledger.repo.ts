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
  type AccountRef,
  type AccountState,
  type JournalEntry,
  type PlannedPosting,
  type PostingLine,
} from '../../domain/ledger.ts';
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
        await sql`insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq,
            balance_after_minor, created_at)
          select ${entry.id}, ${lineNo}, a.id, a.currency, ${line.amountMinor}, a.posting_count + 1,
            a.balance_minor + ${line.amountMinor}, ${entry.createdAt}
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
}
