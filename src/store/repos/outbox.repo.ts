// Outbox events (notifications waiting to be delivered) and their delivery attempts:
// SQL only, no rules. The delivery worker decides what an attempt means (delivered, retry
// at T, failed); this file inserts, records and lists. Claiming and leases live in
// outbox-claims.repo.ts.
import type { ListCursor, ListOptions } from '../../app/ports/store.ts';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { DeliveryAttemptsTable, OutboxEventsTable } from '../database.ts';
import { toNumber, toNumberOrNull } from '../database.ts';
import { originOf } from '../../domain/url-origin.ts';
import type { Db, Dialect, Trx } from '../engine.ts';
import { dialectOf } from '../dialect-of.ts';
import type {
  AttemptRecord,
  AttemptTransition,
  DeliveryAttempt,
  NewAttempt,
  NewOutboxEvent,
  OutboxEvent,
  OutboxStatus,
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

type EventState = { status: string; series: number | string | bigint; lease_owner: string | null };

/** `owner` still holds the event for the attempt's series: its transition decides the state. */
function isOwned(row: EventState, attempt: NewAttempt, owner: string): boolean {
  return row.lease_owner === owner && Number(row.series) === attempt.series && row.status === 'pending';
}

/** The stored row of one attempt, numbered after the event's last one. */
export function attemptRow(attempt: NewAttempt, attemptNo: number): Insertable<DeliveryAttemptsTable> {
  return {
    event_id: attempt.eventId,
    attempt_no: attemptNo,
    series: attempt.series,
    started_at: attempt.startedAt,
    latency_ms: Math.max(0, Math.round(attempt.latencyMs)),
    http_status: attempt.httpStatus,
    error: storableText(attempt.error),
    response_excerpt: storableText(attempt.responseExcerpt),
    instance_id: attempt.instanceId,
  };
}

/** What an owned attempt's transition writes to its event (null where the column keeps its value). */
export function transitionColumns(transition: AttemptTransition): {
  status: OutboxStatus;
  deliveredAt: number | null;
  nextAttemptAt: number | null;
  lastError: string | null;
} {
  return {
    status: transition.status,
    deliveredAt: transition.status === 'delivered' ? transition.deliveredAt : null,
    nextAttemptAt: transition.status === 'pending' ? transition.nextAttemptAt : null,
    lastError: transition.status === 'delivered' ? null : storableText(transition.lastError),
  };
}

// PostgreSQL refuses NUL in text; a merchant's answer may contain anything.
function storableText(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\u0000', '\uFFFD');
}

/**
 * Several recordAttempt()s inside the caller's transaction: also the `recordAttempts` store job
 * (app/store-jobs.ts), which on SQLite runs the whole batch on the writer thread in one message,
 * committed in a group with initiations and completions. Plain data in and out, no clock.
 */
export async function recordAttemptsIn(trx: Trx, items: readonly AttemptRecord[]): Promise<boolean[]> {
  // Rows are locked in id order so two instances' batches can never deadlock.
  const order = items.map((_, i) => i).sort((a, b) => (items[a]!.attempt.eventId < items[b]!.attempt.eventId ? -1 : 1));
  if (new Set(items.map((item) => item.attempt.eventId)).size === items.length) return recordBatch(trx, items, order);
  const applied: boolean[] = new Array(items.length).fill(false);
  for (const i of order) applied[i] = await recordOne(trx, items[i]!);
  return applied;
}

/**
 * The batch in 3 statements (4 if a lease was lost meanwhile), whatever its size: one read of
 * every event's state and last attempt number (locking the rows on PostgreSQL, in id order),
 * one multi-row insert of the attempts, one update applying every owned event's transition.
 */
async function recordBatch(trx: Trx, items: readonly AttemptRecord[], order: number[]): Promise<boolean[]> {
  const ids = order.map((i) => items[i]!.attempt.eventId);
  let read = trx
    .selectFrom('outbox_events as e')
    .select([
      'e.id',
      'e.status',
      'e.series',
      'e.lease_owner',
      sql<number | string | null>`(select max(a.attempt_no) from delivery_attempts a where a.event_id = e.id)`.as('n'),
    ])
    .where('e.id', 'in', ids)
    .orderBy('e.id');
  if (dialectOf(trx) === 'postgres') read = read.forUpdate();
  const rows = new Map((await read.execute()).map((r) => [r.id, r]));
  for (const id of ids) if (!rows.has(id)) throw new Error(`outbox event ${id} does not exist`);
  await trx
    .insertInto('delivery_attempts')
    .values(
      order.map((i) => {
        const { attempt } = items[i]!;
        return attemptRow(attempt, Number(rows.get(attempt.eventId)!.n ?? 0) + 1);
      }),
    )
    .execute();
  const applied: boolean[] = new Array(items.length).fill(false);
  const owned: number[] = [];
  const stale: string[] = [];
  for (const i of order) {
    const { attempt, owner } = items[i]!;
    const row = rows.get(attempt.eventId)!;
    if (isOwned(row, attempt, owner)) owned.push(i);
    else if (row.lease_owner === owner) stale.push(attempt.eventId);
  }
  if (owned.length > 0) {
    // One UPDATE … FROM a VALUES list (SQLite ≥ 3.33 and PostgreSQL alike). The casts type the
    // parameters for PostgreSQL; v's columns are named apart from the table's so SQLite's SET
    // expressions cannot mistake one for the other.
    const values = owned.map((i) => {
      const { attempt, transition } = items[i]!;
      const t = transitionColumns(transition);
      return sql`(cast(${attempt.eventId} as text), cast(${t.status} as text), cast(${t.deliveredAt} as bigint), cast(${t.nextAttemptAt} as bigint), cast(${t.lastError} as text))`;
    });
    await sql`with v(v_id, v_status, v_delivered_at, v_next_attempt_at, v_error) as (values ${sql.join(values)})
      update outbox_events set
        attempts = outbox_events.attempts + 1,
        status = v.v_status,
        lease_owner = null,
        lease_expires_at = null,
        delivered_at = case when v.v_status = 'delivered' then v.v_delivered_at else outbox_events.delivered_at end,
        next_attempt_at = case when v.v_status = 'pending' then v.v_next_attempt_at else outbox_events.next_attempt_at end,
        last_error = v.v_error
      from v where outbox_events.id = v.v_id`.execute(trx);
    for (const i of owned) applied[i] = true;
  }
  // Our lease was taken over or the series moved on: the lease (if still ours) goes back.
  if (stale.length > 0)
    await trx
      .updateTable('outbox_events')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('id', 'in', stale)
      .execute();
  return applied;
}

async function recordOne(trx: Trx, { attempt, owner, transition }: AttemptRecord): Promise<boolean> {
  let current = trx
    .selectFrom('outbox_events')
    .select(['status', 'series', 'lease_owner'])
    .where('id', '=', attempt.eventId);
  // SQLite's BEGIN IMMEDIATE already serialises writers.
  if (dialectOf(trx) === 'postgres') current = current.forUpdate();
  const row = await current.executeTakeFirst();
  if (!row) throw new Error(`outbox event ${attempt.eventId} does not exist`);
  const last = await trx
    .selectFrom('delivery_attempts')
    .select((eb) => eb.fn.max('attempt_no').as('n'))
    .where('event_id', '=', attempt.eventId)
    .executeTakeFirst();
  await trx
    .insertInto('delivery_attempts')
    .values(attemptRow(attempt, Number(last?.n ?? 0) + 1))
    .execute();
  return applyTransition(trx, attempt, owner, transition, row);
}

/** Applies the worker's decision if `owner` still holds the event for the same series; gives a stale lease back otherwise. */
async function applyTransition(
  trx: Trx,
  attempt: NewAttempt,
  owner: string,
  transition: AttemptTransition,
  row: EventState,
): Promise<boolean> {
  if (!isOwned(row, attempt, owner)) {
    if (row.lease_owner === owner) {
      await trx
        .updateTable('outbox_events')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', '=', attempt.eventId)
        .execute();
    }
    return false;
  }
  await trx
    .updateTable('outbox_events')
    .set({
      attempts: sql<number>`attempts + 1`,
      status: transition.status,
      lease_owner: null,
      lease_expires_at: null,
      ...(transition.status === 'delivered' && { delivered_at: transition.deliveredAt, last_error: null }),
      ...(transition.status === 'pending' && {
        next_attempt_at: transition.nextAttemptAt,
        last_error: storableText(transition.lastError),
      }),
      ...(transition.status === 'failed' && { last_error: storableText(transition.lastError) }),
    })
    .where('id', '=', attempt.eventId)
    .execute();
  return true;
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
    if (options.status !== undefined) query = query.where('status', '=', options.status);
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
