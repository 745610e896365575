// PostgreSQL: a batch of delivery attempts recorded in ONE statement (autocommit), instead of the
// five round trips of a transaction (BEGIN, read, insert, update, COMMIT). Every statement is a
// socket write that wakes a PostgreSQL backend, which on a small machine takes the CPU from the
// HTTP thread for as long as it runs (docs/performance.md, "Where the time goes"); the delivery
// worker records a batch for every few notifications. Same rules as recordAttemptsIn
// (outbox.repo.ts), which SQLite's store job and the one-by-one fallback still use:
//  - `cur` locks the batch's events in id order (two instances' batches cannot deadlock) and
//    reads each one's state and last attempt number as locked.
//  - Every attempt is logged, numbered after the event's last one.
//  - An event still leased to the caller for the same series, and pending, takes the attempt's
//    transition and its lease is given back; leased to the caller but for an older series (an
//    operator resent it meanwhile), only the lease is given back; anybody else's is left alone.
//  - An unknown event id fails the whole statement (the attempt's foreign key), so nothing of the
//    batch is written and the caller records its items one by one (attempt-recorder.ts).
// The event ids must be distinct (the caller records a batch with a repeated id one by one).
// Named prepared statement, arrays through unnest(), like pg-initiation-batch.ts.
import type pg from 'pg';
import { pgArrayLiteral } from './array-literal.ts';
import { attemptRow, transitionColumns } from '../repos/attempts.repo.ts';
import { type AttemptRecord } from '../../domain/outbox-event.ts';

const RECORD = {
  name: 'delivery_attempts_record_v1',
  text:
    `with v as (
    select * from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::int[], $6::int[], $7::text[], ` +
    `$8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::text[])
      as v(event_id, owner, series, started_at, latency_ms, http_status, error, response_excerpt, instance_id, ` +
    `t_status, t_delivered_at, t_next_attempt_at, t_error)
  ),
  cur as materialized (
    select e.id, e.status, e.series, e.lease_owner, ` +
    `(select max(a.attempt_no) from delivery_attempts a where a.event_id = e.id) as last_no
    from outbox_events e where e.id = any($1::text[])
    order by e.id for update
  ),
  x as materialized (
    select v.*, cur.last_no, cur.lease_owner = v.owner as held,
           (cur.lease_owner = v.owner and cur.series = v.series and cur.status = 'pending') as owned
    from v left join cur on cur.id = v.event_id
  ),
  logged as (
    insert into delivery_attempts (event_id, attempt_no, series, started_at, latency_ms, http_status, error, ` +
    `response_excerpt, instance_id)
    select event_id, coalesce(last_no, 0) + 1, series, started_at, latency_ms, http_status, error, response_excerpt, ` +
    `instance_id from x
  ),
  applied as (
    update outbox_events o set
      attempts = case when x.owned then o.attempts + 1 else o.attempts end,
      status = case when x.owned then x.t_status else o.status end,
      lease_owner = null,
      lease_expires_at = null,
      delivered_at = case when x.owned and x.t_status = 'delivered' then x.t_delivered_at else o.delivered_at end,
      next_attempt_at = case when x.owned and x.t_status = 'pending' then x.t_next_attempt_at ` +
    `else o.next_attempt_at end,
      last_error = case when x.owned then x.t_error else o.last_error end
    from x where o.id = x.event_id and x.held
  )
  select event_id, coalesce(owned, false) as applied from x`,
};

/** Records the batch atomically; resolves with whether each item's transition was applied (in `items` order). */
export async function recordAttemptsPg(pool: pg.Pool, items: readonly AttemptRecord[]): Promise<boolean[]> {
  if (items.length === 0) return [];
  // One tuple per item in the order of the statement's parameters, then one array per parameter.
  const tuples = items.map(({ attempt, owner, transition }) => {
    const row = attemptRow(attempt, 0);
    const t = transitionColumns(transition);
    return [
      row.event_id,
      owner,
      row.series,
      row.started_at,
      row.latency_ms,
      row.http_status,
      row.error,
      row.response_excerpt,
      row.instance_id,
      t.status,
      t.deliveredAt,
      t.nextAttemptAt,
      t.lastError,
    ];
  });
  const values = tuples[0]!.map((_, column) => pgArrayLiteral(tuples.map((tuple) => tuple[column])));
  const { rows } = await pool.query<{ event_id: string; applied: boolean }>({ ...RECORD, values });
  const applied = new Map(rows.map((r) => [r.event_id, r.applied]));
  return items.map((item) => applied.get(item.attempt.eventId) ?? false);
}
