// Outbox events (notifications waiting to be delivered) and their delivery attempts:
// SQL only, no rules. The delivery worker decides what an attempt means (delivered, retry
// at T, failed); this file inserts, records and lists. Claiming and leases live in
// outbox-claims.repo.ts.
import type { ListOptions } from '../../app/ports/store.ts';
import { sql, type Selectable } from 'kysely';
import type { DeliveryAttemptsTable, OutboxEventsTable } from '../database.ts';
import { toNumber, toNumberOrNull } from '../database.ts';
import { originOf } from '../../domain/url-origin.ts';
import type { Db, Dialect, Trx } from '../engine.ts';
import { recordAttemptsIn } from './attempts.repo.ts';
import type {
  AttemptRecord,
  AttemptTransition,
  DeliveryAttempt,
  NewAttempt,
  NewOutboxEvent,
  OutboxEvent,
} from '../../domain/outbox-event.ts';

/**
 * Written inside the final-state transaction, so a final state always has its notification.
 * PostgreSQL completion sets write the same row in SQL (pg-completions.repo.ts): keep them in step.
 */
export async function insertOutboxEvent(trx: Trx, event: NewOutboxEvent): Promise<void> {
  await trx
    .insertInto('outbox_events')
    .values({
      id: event.id,
      transaction_id: event.transactionId,
      merchant_id: event.merchantId,
      target_url: event.targetUrl,
      origin: originOf(event.targetUrl),
      payload: event.payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: event.createdAt,
      lease_owner: null,
      lease_expires_at: null,
      series: 1,
      created_at: event.createdAt,
      delivered_at: null,
      last_error: null,
      refund_id: event.refundId ?? null,
    })
    .execute();
}

export function eventFromRow(row: Selectable<OutboxEventsTable>): OutboxEvent {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    merchantId: row.merchant_id,
    targetUrl: row.target_url,
    origin: row.origin ?? originOf(row.target_url),
    payload: row.payload,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: toNumber(row.next_attempt_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: toNumberOrNull(row.lease_expires_at),
    series: Number(row.series),
    createdAt: toNumber(row.created_at),
    deliveredAt: toNumberOrNull(row.delivered_at),
    lastError: row.last_error,
    refundId: row.refund_id ?? null,
  };
}

function attemptFromRow(row: Selectable<DeliveryAttemptsTable>): DeliveryAttempt {
  return {
    eventId: row.event_id,
    attemptNo: Number(row.attempt_no),
    series: Number(row.series),
    startedAt: toNumber(row.started_at),
    latencyMs: Number(row.latency_ms),
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    error: row.error,
    responseExcerpt: row.response_excerpt,
    instanceId: row.instance_id,
  };
}

export class OutboxRepo {
  readonly #db: Db;

  /** `dialect` is kept for callers; the SQL is picked from the handle (dialectOf). */
  constructor(db: Db, _dialect?: Dialect) {
    this.#db = db;
  }

  /**
   * Stores one attempt and, if `owner` still holds the lease for the same series, applies
   * `transition` and gives the lease back. If the lease was lost (expired and taken over) or an
   * operator started a new series meanwhile, the attempt is still stored — it happened — but
   * the event's state is left to whoever owns it now.
   * Returns whether the transition was applied.
   */
  async recordAttempt(attempt: NewAttempt, owner: string, transition: AttemptTransition): Promise<boolean> {
    const [applied] = await this.recordAttempts([{ attempt, owner, transition }]);
    return applied ?? false;
  }

  /** Several recordAttempt()s in one database transaction (one commit, one fsync on SQLite). */
  async recordAttempts(items: readonly AttemptRecord[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    return this.#db.transaction().execute((trx) => recordAttemptsIn(trx, items));
  }

  async findById(id: string): Promise<OutboxEvent | undefined> {
    const row = await this.#db.selectFrom('outbox_events').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? eventFromRow(row) : undefined;
  }

  /** The payment's result notification (refund notifications of the same payment are not it). */
  async findByTransaction(transactionId: string): Promise<OutboxEvent | undefined> {
    const row = await this.#db
      .selectFrom('outbox_events')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .where('refund_id', 'is', null)
      .executeTakeFirst();
    return row ? eventFromRow(row) : undefined;
  }

  /** The notification of one refund. */
  async findByRefund(refundId: string): Promise<OutboxEvent | undefined> {
    const row = await this.#db
      .selectFrom('outbox_events')
      .selectAll()
      .where('refund_id', '=', refundId)
      .executeTakeFirst();
    return row ? eventFromRow(row) : undefined;
  }

  /**
   * Newest first, one page: keyset pagination on (created_at, id) after an optional merchant or
   * status filter, each served by an index of migration 010, so page N costs what page 1 does.
   */
  async list(options: ListOptions = {}): Promise<OutboxEvent[]> {
    let query = this.#db.selectFrom('outbox_events').selectAll();
    if (options.merchantId !== undefined) query = query.where('merchant_id', '=', options.merchantId);
    if (options.status === 'attention')
      query = query.where((eb) =>
        eb.or([eb('status', '=', 'failed'), eb.and([eb('status', '=', 'pending'), eb('attempts', '>', 0)])]),
      );
    else if (options.status !== undefined) query = query.where('status', '=', options.status);
    const before = options.before;
    if (before) query = query.where(sql<boolean>`(created_at, id) < (${before.createdAt}, ${before.id})`);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map(eventFromRow);
  }

  /** Oldest first. */
  async attempts(eventId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.#db
      .selectFrom('delivery_attempts')
      .selectAll()
      .where('event_id', '=', eventId)
      .orderBy('attempt_no')
      .execute();
    return rows.map(attemptFromRow);
  }

  /**
   * Starts a new attempt series: same id, same body, attempts from 0, due now. A lease held by
   * an in-flight send is kept, so the event is still never in flight twice; that send's
   * result is recorded but no longer decides the state (its series is over).
   * Returns the new series number, or undefined when there is no such event.
   */
  async resend(id: string, now: number): Promise<number | undefined> {
    const row = await this.#db
      .updateTable('outbox_events')
      .set({
        series: sql<number>`series + 1`,
        attempts: 0,
        status: 'pending',
        next_attempt_at: now,
        delivered_at: null,
        last_error: null,
      })
      .where('id', '=', id)
      .returning('series')
      .executeTakeFirst();
    return row ? Number(row.series) : undefined;
  }

  resultEventAttempted(transactionId: string): Promise<{ eventId: string; attempted: boolean } | undefined> {
    return resultEventAttempted(this.#db, transactionId);
  }
}

/**
 * The payment's result notification and whether any delivery attempt of it has been recorded
 * (by any instance); undefined when the transaction has no result event (not final yet).
 */
export async function resultEventAttempted(
  db: Db,
  transactionId: string,
): Promise<{ eventId: string; attempted: boolean } | undefined> {
  const row = await db
    .selectFrom('outbox_events as e')
    .select((eb) => [
      'e.id',
      eb
        .exists(eb.selectFrom('delivery_attempts as a').select('a.event_id').whereRef('a.event_id', '=', 'e.id'))
        .as('attempted'),
    ])
    .where('e.transaction_id', '=', transactionId)
    .where('e.refund_id', 'is', null)
    .executeTakeFirst();
  // SQLite answers 0/1, PostgreSQL true/false.
  return row ? { eventId: row.id, attempted: Boolean(Number(row.attempted)) } : undefined;
}
