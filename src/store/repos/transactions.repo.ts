// Transactions and their transition records: SQL only, no rules.
import { CompiledQuery, sql, type Insertable, type Selectable } from 'kysely';
import { isDeepStrictEqual } from 'node:util';
import type { TransactionsTable } from '../database.ts';
import { toBigInt, toNumber, toNumberOrNull } from '../database.ts';
import type { TransactionStatus } from '../../domain/lifecycle.ts';
import type { TransactionRecord, Transition } from '../../domain/transaction.ts';
import type { CompletionInput } from '../../domain/completion.ts';
import type { PayerCheck } from '../../domain/payer-check.ts';
import type { Db, Trx } from '../engine.ts';
import type { SqliteLookupBatches } from '../sqlite/lookup-batches.ts';
import type pg from 'pg';
import { PgTransactionLookups } from '../postgres/transaction-lookups.ts';
import { LEGACY_REDIRECT_ID } from '../migrations/019-keyed-identifiers.ts';

export function transactionFromRow(row: Selectable<TransactionsTable>): TransactionRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    trackid: row.trackid,
    requestHash: row.request_hash,
    token: row.token,
    redirectId: row.redirect_id,
    status: row.status,
    errorCodeTag: row.error_code_tag,
    errorText: row.error_text,
    amountMinor: toBigInt(row.amount_minor),
    currency: row.currency,
    paymentMethod: row.payment_method,
    billCountry: row.bill_country,
    billCustomerIp: row.bill_customerip,
    billEmail: row.bill_email,
    returnUrl: row.return_url,
    serverUrl: row.server_url,
    payerAccountNo: row.payer_account_no,
    payerAccountName: row.payer_account_name,
    payerBankCode: row.payer_bank_code,
    productdesc: row.productdesc,
    lang: row.lang,
    createdAt: toNumber(row.created_at),
    expiresAt: toNumber(row.expires_at),
    completedAt: toNumberOrNull(row.completed_at),
    returnUrlOnFailure: row.return_url_on_failure ?? null,
    refundedMinor: toBigInt(row.refunded_minor ?? 0),
    payerCheck: row.payer_check ?? null,
  };
}

function fromRow(row: Selectable<TransactionsTable> | undefined): TransactionRecord | undefined {
  return row ? transactionFromRow(row) : undefined;
}

export function transactionToRow(t: TransactionRecord): Insertable<TransactionsTable> {
  return {
    id: t.id,
    merchant_id: t.merchantId,
    trackid: t.trackid,
    request_hash: t.requestHash,
    token: t.token,
    redirect_id: t.redirectId,
    status: t.status,
    error_code_tag: t.errorCodeTag,
    error_text: t.errorText,
    amount_minor: t.amountMinor,
    currency: t.currency,
    payment_method: t.paymentMethod,
    bill_country: t.billCountry,
    bill_customerip: t.billCustomerIp,
    bill_email: t.billEmail,
    return_url: t.returnUrl,
    server_url: t.serverUrl,
    payer_account_no: t.payerAccountNo,
    payer_account_name: t.payerAccountName,
    payer_bank_code: t.payerBankCode,
    productdesc: t.productdesc,
    lang: t.lang,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    completed_at: t.completedAt,
    return_url_on_failure: t.returnUrlOnFailure,
    refunded_minor: t.refundedMinor,
    // No payer_check: it is null at initiation, and the initiation's INSERT stays as it was.
  };
}

export class TransactionsRepo {
  readonly #db: Db;
  /** The hot-path INSERT compiled once (no per-request query building); see #compiledInsert. */
  #insertSql: string | undefined;
  /** The one-row lookups of the request path (status, replays, the hosted page), compiled once; see #lookup. */
  readonly #lookups = new Map<string, CompiledQuery>();
  /** PostgreSQL: the same lookups as named prepared statements (outside transactions). */
  readonly #pg: PgTransactionLookups | undefined;
  /** SQLite on a file: the same lookups, batched per turn on the read connection (outside transactions). */
  readonly #sqlite: SqliteLookupBatches | undefined;

  constructor(db: Db, options: { pgPool?: pg.Pool | undefined; sqliteLookups?: SqliteLookupBatches | undefined } = {}) {
    this.#db = db;
    this.#pg = options.pgPool ? new PgTransactionLookups(options.pgPool) : undefined;
    this.#sqlite = options.sqliteLookups;
  }

  /**
   * Kysely compiles the INSERT with one parameter per column in the row's key order. The SQL is
   * kept after the first compilation has been checked to follow exactly that order, so later
   * rows only need their values in the same order.
   */
  #compiledInsert(row: Insertable<TransactionsTable>): CompiledQuery {
    const values = Object.values(row);
    if (this.#insertSql !== undefined) return CompiledQuery.raw(this.#insertSql, values);
    const compiled = this.#db
      .insertInto('transactions')
      .values(row)
      .onConflict((oc) => oc.columns(['merchant_id', 'trackid']).doNothing())
      .compile();
    if (isDeepStrictEqual([...compiled.parameters], values)) this.#insertSql = compiled.sql;
    return compiled;
  }

  /**
   * Inserts unless (merchant, trackid) exists; either way returns the stored row. The unique
   * key makes concurrent identical requests produce exactly one transaction.
   */
  async insertOrGet(t: TransactionRecord, db: Db = this.#db): Promise<{ inserted: boolean; row: TransactionRecord }> {
    const row = transactionToRow(t);
    const result = await db.executeQuery(this.#compiledInsert(row));
    if ((result.numAffectedRows ?? 0n) > 0n) return { inserted: true, row: t };
    const existing = await this.findByTrackid(t.merchantId, t.trackid, db);
    if (!existing) throw new Error('transaction conflict without an existing row');
    return { inserted: false, row: existing };
  }

  async findById(merchantId: string, id: string, trx?: Trx): Promise<TransactionRecord | undefined> {
    if (!trx && this.#pg) return fromRow(await this.#pg.byId(merchantId, id));
    const db = trx ?? this.#db;
    return this.#lookup('byId', [merchantId, id], db, () =>
      db.selectFrom('transactions').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).compile(),
    );
  }

  async findByTrackid(merchantId: string, trackid: string, db: Db = this.#db): Promise<TransactionRecord | undefined> {
    if (db === this.#db && this.#pg) return fromRow(await this.#pg.byTrackid(merchantId, trackid));
    return this.#lookup('byTrackid', [merchantId, trackid], db, () =>
      db
        .selectFrom('transactions')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('trackid', '=', trackid)
        .compile(),
    );
  }

  /**
   * The payment a hosted-page id names: by primary key when the id is keyed (`carriedId`, the
   * transaction id it carries, its MAC already checked: domain/keyed-ids.ts), else among the ids
   * issued before migration 019 (its partial index). Either way only a row whose stored redirect
   * id is exactly `redirectId`: a valid MAC never reaches a row that holds another id.
   */
  async findByRedirectId(redirectId: string, carriedId: string | undefined): Promise<TransactionRecord | undefined> {
    const found =
      carriedId === undefined ? await this.#legacyRedirectId(redirectId) : await this.#byPrimaryKey(carriedId);
    return found?.redirectId === redirectId ? found : undefined;
  }

  async #byPrimaryKey(id: string): Promise<TransactionRecord | undefined> {
    if (this.#pg) return fromRow(await this.#pg.byPrimaryKey(id));
    return this.#lookup('byPrimaryKey', [id], this.#db, () =>
      this.#db.selectFrom('transactions').selectAll().where('id', '=', id).compile(),
    );
  }

  /** The predicate is written as migration 019's partial index states it, so the index serves. */
  async #legacyRedirectId(redirectId: string): Promise<TransactionRecord | undefined> {
    if (this.#pg) return fromRow(await this.#pg.byLegacyRedirectId(redirectId));
    return this.#lookup('byLegacyRedirectId', [redirectId], this.#db, () =>
      this.#db
        .selectFrom('transactions')
        .selectAll()
        .where('redirect_id', '=', redirectId)
        .where(sql.raw<boolean>(LEGACY_REDIRECT_ID))
        .compile(),
    );
  }

  /**
   * A lookup of one row, compiled by Kysely the first time and kept once its parameters are
   * checked to be exactly `parameters` in order; later calls only swap the parameters. The whole
   * compiled query is kept, not just its SQL: the SQLite driver routes by its node (a SELECT
   * runs on the main thread's read connection; raw SQL would go to the writer thread).
   *
   * Outside a transaction on SQLite the kept statement goes to the turn's lookup batch on that
   * read connection (sqlite/lookup-batches.ts), not through Kysely's executor: the same
   * statement on the same connection, run with the turn's other lookups in one read transaction
   * that begins after they were all asked for (docs/performance.md "SQLite reads").
   */
  async #lookup(
    name: string,
    parameters: readonly string[],
    db: Db | Trx,
    build: () => CompiledQuery,
  ): Promise<TransactionRecord | undefined> {
    const kept = this.#lookups.get(name);
    let compiled: CompiledQuery;
    if (kept !== undefined) {
      compiled = { ...kept, parameters };
    } else {
      compiled = build();
      if (isDeepStrictEqual([...compiled.parameters], parameters)) this.#lookups.set(name, compiled);
    }
    if (db === this.#db && this.#sqlite) {
      return fromRow((await this.#sqlite.first(compiled.sql, compiled.parameters)) as Selectable<TransactionsTable>);
    }
    const { rows } = await db.executeQuery<Selectable<TransactionsTable>>(compiled);
    return fromRow(rows[0]);
  }

  /**
   * A completion's one read: the row with its merchant's fee rate as of now, in one statement.
   * No lock: the completion's write is conditional on the row still being PROCESSING.
   */
  async findForCompletion(id: string): Promise<CompletionInput | undefined> {
    if (this.#pg) {
      const row = await this.#pg.forCompletion(id);
      return row && completionInputFromRow(row);
    }
    const row = await this.#db
      .selectFrom('transactions as t')
      .innerJoin('merchants as m', 'm.id', 't.merchant_id')
      .selectAll('t')
      .select('m.fee_rate_ppm')
      .where('t.id', '=', id)
      .executeTakeFirst();
    return row && completionInputFromRow(row);
  }

  /**
   * Reads the row inside a transaction, locking it on PostgreSQL (SQLite's IMMEDIATE transaction already
   * serialises).
   */
  async lockById(trx: Trx, id: string, dialect: 'sqlite' | 'postgres'): Promise<TransactionRecord | undefined> {
    let query = trx.selectFrom('transactions').selectAll().where('id', '=', id);
    if (dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row ? transactionFromRow(row) : undefined;
  }

  /**
   * Writes the final state only if still PROCESSING with the payer check as read; returns false
   * when someone else finalised (or the payer check held) it first. (PostgreSQL completion sets do
   * this, and addTransition, in SQL: postgres/completion-sets.repo.ts.)
   */
  async finalise(
    trx: Trx,
    id: string,
    final: {
      status: TransactionStatus;
      errorCodeTag: string | null;
      errorText: string | null;
      completedAt: number;
      payerCheck: PayerCheck | null;
    },
    payerCheckAsRead: PayerCheck | null,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('transactions')
      .set({
        status: final.status,
        error_code_tag: final.errorCodeTag,
        error_text: final.errorText,
        completed_at: final.completedAt,
        payer_check: final.payerCheck,
      })
      .where('id', '=', id)
      .where('status', '=', 'PROCESSING')
      .where('payer_check', payerCheckAsRead === null ? 'is' : '=', payerCheckAsRead)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) === 1n;
  }

  /**
   * Holds a PROCESSING payment for an operator (the payer check found another payer): its verdict
   * is written, its state stays. False when it is final, or holds a verdict already.
   */
  async holdForPayer(id: string, payerCheck: PayerCheck): Promise<boolean> {
    const result = await this.#db
      .updateTable('transactions')
      .set({ payer_check: payerCheck })
      .where('id', '=', id)
      .where('status', '=', 'PROCESSING')
      .where('payer_check', 'is', null)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) === 1n;
  }

  /** Appends the next transition of a transaction: one statement (the sequence number is computed in it). */
  async addTransition(trx: Trx, t: Transition): Promise<void> {
    await sql`insert into transaction_transitions
        (transaction_id, seq, from_status, to_status, cause, error_code_tag, at)
      select ${t.transactionId}, coalesce(max(seq), 0) + 1, ${t.fromStatus}, ${t.toStatus}, ${t.cause},
        cast(${t.errorCodeTag} as text), cast(${t.at} as bigint)
      from transaction_transitions where transaction_id = ${t.transactionId}`.execute(trx);
  }

  async transitions(transactionId: string): Promise<Transition[]> {
    const rows = await this.#db
      .selectFrom('transaction_transitions')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({
      transactionId: r.transaction_id,
      fromStatus: r.from_status as TransactionStatus,
      toStatus: r.to_status as TransactionStatus,
      cause: r.cause,
      errorCodeTag: r.error_code_tag,
      at: toNumber(r.at),
    }));
  }

  /**
   * PROCESSING transactions whose deadline has passed, oldest first; not those the payer check
   * holds for an operator (paid, so never expired: only the operator's decision ends them).
   */
  async findExpired(now: number, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('transactions')
      .select('id')
      .where('status', '=', 'PROCESSING')
      .where('expires_at', '<=', now)
      .where('payer_check', 'is', null)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }
}

export function completionInputFromRow(
  row: Selectable<TransactionsTable> & { fee_rate_ppm: number | string | bigint },
): CompletionInput {
  const { fee_rate_ppm, ...transaction } = row;
  return { record: transactionFromRow(transaction), feeRatePpm: BigInt(fee_rate_ppm) };
}
