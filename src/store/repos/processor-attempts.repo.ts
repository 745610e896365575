// Processor attempts (migration 015): SQL only. The reconciler's lease works like the outbox's:
// PostgreSQL claims with FOR UPDATE SKIP LOCKED so instances never check one attempt at once;
// SQLite has one process.
import { sql, type Selectable } from 'kysely';
import type { AttemptChanges, ProcessorAttemptStore } from '../../app/ports/processor-store.ts';
import type { ProcessorAttempt, ProcessorAttemptKind, ProcessorAttemptState } from '../../domain/processor-attempt.ts';
import { toBigInt, toNumber, toNumberOrNull, type ProcessorAttemptsTable } from '../database.ts';
import { dialectOf } from '../dialect-of.ts';
import type { Db } from '../engine.ts';
import { isUniqueViolation } from '../unique-violation.ts';

function fromRow(row: Selectable<ProcessorAttemptsTable>): ProcessorAttempt {
  return {
    reference: row.reference,
    transactionId: row.transaction_id,
    connector: row.connector,
    kind: row.kind,
    attempt: Number(row.attempt),
    state: row.state as ProcessorAttemptState,
    stateAt: toNumber(row.state_at),
    qrPayload: row.qr_payload,
    expiresAt: toNumberOrNull(row.expires_at),
    accountName: row.account_name,
    issuer: row.issuer,
    processorTxnNo: row.processor_txn_no,
    paidAmountMinor: row.paid_amount_minor === null ? null : toBigInt(row.paid_amount_minor),
    paidAt: toNumberOrNull(row.paid_at),
    refundId: row.refund_id,
    parentReference: row.parent_reference,
    lastError: row.last_error,
    nextCheckAt: toNumberOrNull(row.next_check_at),
    checks: Number(row.checks),
    createdAt: toNumber(row.created_at),
  };
}

/** The columns an update writes (undefined: keep). */
function changedColumns(c: AttemptChanges): Partial<ProcessorAttemptsTable> {
  const columns: Partial<ProcessorAttemptsTable> = {};
  if (c.state !== undefined) columns.state = c.state;
  if (c.stateAt !== undefined) columns.state_at = c.stateAt;
  if (c.qrPayload !== undefined) columns.qr_payload = c.qrPayload;
  if (c.expiresAt !== undefined) columns.expires_at = c.expiresAt;
  if (c.accountName !== undefined) columns.account_name = c.accountName;
  if (c.issuer !== undefined) columns.issuer = c.issuer;
  if (c.processorTxnNo !== undefined) columns.processor_txn_no = c.processorTxnNo;
  if (c.paidAmountMinor !== undefined) columns.paid_amount_minor = c.paidAmountMinor;
  if (c.paidAt !== undefined) columns.paid_at = c.paidAt;
  if (c.lastError !== undefined) columns.last_error = c.lastError === null ? null : c.lastError.slice(0, 500);
  if (c.nextCheckAt !== undefined) columns.next_check_at = c.nextCheckAt;
  if (c.checks !== undefined) columns.checks = c.checks;
  return columns;
}

export class ProcessorAttemptsRepo implements ProcessorAttemptStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(a: ProcessorAttempt): Promise<boolean> {
    try {
      await this.#db
        .insertInto('processor_attempts')
        .values({
          reference: a.reference,
          transaction_id: a.transactionId,
          connector: a.connector,
          kind: a.kind,
          attempt: a.attempt,
          state: a.state,
          state_at: a.stateAt,
          qr_payload: a.qrPayload,
          expires_at: a.expiresAt,
          account_name: a.accountName,
          issuer: a.issuer,
          processor_txn_no: a.processorTxnNo,
          paid_amount_minor: a.paidAmountMinor,
          paid_at: a.paidAt,
          refund_id: a.refundId,
          parent_reference: a.parentReference,
          last_error: a.lastError,
          next_check_at: a.nextCheckAt,
          checks: a.checks,
          lease_owner: null,
          lease_expires_at: null,
          created_at: a.createdAt,
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async find(reference: string): Promise<ProcessorAttempt | undefined> {
    const row = await this.#db
      .selectFrom('processor_attempts')
      .selectAll()
      .where('reference', '=', reference)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  async forTransaction(transactionId: string): Promise<ProcessorAttempt[]> {
    const rows = await this.#db
      .selectFrom('processor_attempts')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .orderBy('created_at')
      .orderBy('attempt')
      .execute();
    return rows.map(fromRow);
  }

  async latest(transactionId: string, kind: ProcessorAttemptKind): Promise<ProcessorAttempt | undefined> {
    const row = await this.#db
      .selectFrom('processor_attempts')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .where('kind', '=', kind)
      .orderBy('attempt', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  async update(reference: string, changes: AttemptChanges): Promise<void> {
    const columns = changedColumns(changes);
    if (Object.keys(columns).length === 0) return;
    await this.#db.updateTable('processor_attempts').set(columns).where('reference', '=', reference).execute();
  }

  async claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<ProcessorAttempt[]> {
    const lock = dialectOf(this.#db) === 'postgres' ? sql` for update skip locked` : sql``;
    const result = await sql<Selectable<ProcessorAttemptsTable>>`
      update processor_attempts set lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}
      where reference in (
        select reference from processor_attempts
        where next_check_at is not null and next_check_at <= ${now}
          and (lease_expires_at is null or lease_expires_at <= ${now})
        order by next_check_at, reference limit ${limit}${lock}
      )
      returning *`.execute(this.#db);
    return result.rows.map(fromRow);
  }

  async release(reference: string, owner: string, changes: AttemptChanges): Promise<void> {
    await this.#db
      .updateTable('processor_attempts')
      .set({ ...changedColumns(changes), lease_owner: null, lease_expires_at: null })
      .where('reference', '=', reference)
      .where('lease_owner', '=', owner)
      .execute();
  }

  async nextCheckAt(): Promise<number | null> {
    const row = await this.#db
      .selectFrom('processor_attempts')
      .select((eb) => eb.fn.min('next_check_at').as('at'))
      .where('next_check_at', 'is not', null)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : toNumber(row.at);
  }

  async settledBetween(from: number, to: number): Promise<ProcessorAttempt[]> {
    const rows = await this.#db
      .selectFrom('processor_attempts')
      .selectAll()
      .where('paid_at', '>=', from)
      .where('paid_at', '<', to)
      .orderBy('paid_at')
      .execute();
    return rows.map(fromRow);
  }

  async inStates(states: readonly ProcessorAttemptState[], limit: number): Promise<ProcessorAttempt[]> {
    if (states.length === 0) return [];
    const rows = await this.#db
      .selectFrom('processor_attempts')
      .selectAll()
      .where('state', 'in', [...states])
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }
}
