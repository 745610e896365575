// Refund rows: SQL only. The rules (what may be refunded) live in app/refund-payment.ts and in
// migration 012's CHECKs and trigger.
import type { RefundListOptions } from '../../app/ports/store.ts';
import { sql, type Selectable } from 'kysely';
import type { RefundsTable } from '../database.ts';
import { toBigInt, toNumber } from '../database.ts';
import type { Db, Trx } from '../engine.ts';
import { TRANSFER_PAYERS, type RefundRecord, type TransferPaidBy } from '../../domain/refund.ts';

/** The column as stored (migration 017's CHECK allows only these values, or null). */
function transferPaidByOf(value: string | null): TransferPaidBy | null {
  if (value === null) return null;
  const known = TRANSFER_PAYERS.find((p) => p === value);
  if (!known) throw new Error(`refunds.transfer_paid_by: unexpected value ${JSON.stringify(value)}`);
  return known;
}

function refundFromRow(row: Selectable<RefundsTable>): RefundRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    transactionId: row.transaction_id,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    amountMinor: toBigInt(row.amount_minor),
    currency: row.currency,
    refundedAfterMinor: toBigInt(row.refunded_after_minor),
    reason: row.reason,
    reference: row.reference,
    processor: row.processor,
    processorReference: row.processor_reference,
    transferPaidBy: transferPaidByOf(row.transfer_paid_by),
    createdAt: toNumber(row.created_at),
  };
}

export class RefundsRepo {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(trx: Trx, r: RefundRecord): Promise<void> {
    await trx
      .insertInto('refunds')
      .values({
        id: r.id,
        merchant_id: r.merchantId,
        transaction_id: r.transactionId,
        idempotency_key: r.idempotencyKey,
        request_hash: r.requestHash,
        amount_minor: r.amountMinor,
        currency: r.currency,
        refunded_after_minor: r.refundedAfterMinor,
        reason: r.reason,
        reference: r.reference,
        processor: r.processor,
        processor_reference: r.processorReference,
        transfer_paid_by: r.transferPaidBy,
        created_at: r.createdAt,
      })
      .execute();
  }

  async findByKey(merchantId: string, idempotencyKey: string, trx?: Trx): Promise<RefundRecord | undefined> {
    const row = await (trx ?? this.#db)
      .selectFrom('refunds')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    return row ? refundFromRow(row) : undefined;
  }

  async findById(id: string): Promise<RefundRecord | undefined> {
    const row = await this.#db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? refundFromRow(row) : undefined;
  }

  /** Oldest first: the refunds of one payment. */
  async ofTransaction(transactionId: string): Promise<RefundRecord[]> {
    const rows = await this.#db
      .selectFrom('refunds')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(refundFromRow);
  }

  /** Newest first, one page (keyset on created_at, id). */
  async list(options: RefundListOptions = {}): Promise<RefundRecord[]> {
    let query = this.#db.selectFrom('refunds').selectAll();
    if (options.merchantId !== undefined) query = query.where('merchant_id', '=', options.merchantId);
    if (options.transactionId !== undefined) query = query.where('transaction_id', '=', options.transactionId);
    const before = options.before;
    if (before) query = query.where(sql<boolean>`(created_at, id) < (${before.createdAt}, ${before.id})`);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map(refundFromRow);
  }

  /** Moves the payment's running total, only from the total the caller read (the row is locked anyway). */
  async addToRefunded(trx: Trx, transactionId: string, fromMinor: bigint, toMinor: bigint): Promise<boolean> {
    const result = await trx
      .updateTable('transactions')
      .set({ refunded_minor: toMinor })
      .where('id', '=', transactionId)
      .where('refunded_minor', '=', fromMinor)
      .where('status', '=', 'SUCCESS')
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) === 1n;
  }
}
