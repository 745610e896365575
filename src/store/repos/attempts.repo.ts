// Delivery attempts and the transitions they carry: SQL only. The delivery worker decides what an
// attempt means (delivered, retry at T, failed); this records it in the log and applies it to
// its event while the recorder still holds the event's lease for that series.
import { sql, type Insertable } from 'kysely';
import type { AttemptRecord, AttemptTransition, NewAttempt, OutboxStatus } from '../../domain/outbox-event.ts';
import type { DeliveryAttemptsTable } from '../database.ts';
import { dialectOf } from '../dialect-of.ts';
import type { Trx } from '../engine.ts';

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
 * (store/sqlite/jobs.ts), which on SQLite runs the whole batch on the writer thread in one message,
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
      return sql`(cast(${attempt.eventId} as text), cast(${t.status} as text), cast(${t.deliveredAt} as bigint),
        cast(${t.nextAttemptAt} as bigint), cast(${t.lastError} as text))`;
    });
    await sql`with v(v_id, v_status, v_delivered_at, v_next_attempt_at, v_error) as (values ${sql.join(values)})
      update outbox_events set
        attempts = outbox_events.attempts + 1,
        status = v.v_status,
        lease_owner = null,
        lease_expires_at = null,
        delivered_at = case when v.v_status = 'delivered' then v.v_delivered_at else outbox_events.delivered_at end,
        next_attempt_at = case when v.v_status = 'pending' then v.v_next_attempt_at
          else outbox_events.next_attempt_at end,
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

/**
 * Applies the worker's decision if `owner` still holds the event for the same series; gives a stale lease back
 * otherwise.
 */
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
