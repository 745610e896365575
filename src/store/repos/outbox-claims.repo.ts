// Claiming due outbox events for delivery, and giving leases back: SQL only.
//
// Ownership: a claimed event carries `lease_owner` + `lease_expires_at`. Another instance may
// claim it only once the lease has expired, so an instance that dies mid-send gives its events
// back after the lease, and a live instance never shares an event in flight. PostgreSQL leases
// run on the database clock (instances' clocks may drift) and claims lock with SKIP LOCKED;
// SQLite has one process, so the caller's clock is enough.
//
// Cost: a claim walks the origins that have pending events (a loose index scan over
// `outbox_pending_origin`, one index seek per origin) and takes the oldest due events of the
// origins it may send to. Neither a large backlog nor a saturated or dead endpoint's events are
// ever scanned: the work is O(origins visited + events taken), whatever the backlog.
import type { FairClaimOptions, FairClaim } from '../../app/ports/delivery.ts';
import { sql, type RawBuilder } from 'kysely';
import type { Selectable } from 'kysely';
import type { OutboxEventsTable } from '../database.ts';
import { toNumber } from '../database.ts';
import { eventFromRow } from './outbox.repo.ts';
import { type OutboxEvent } from '../../domain/outbox-event.ts';
import { originOf } from '../../domain/url-origin.ts';
import type { Db, Dialect, Trx } from '../engine.ts';

/** Origins looked at per claim; a cursor carries on from the last one next time. */
const MAX_ORIGINS_PER_CLAIM = 256;

/**
 * Lease clock: the database's on PostgreSQL (shared by every instance), the caller's on SQLite
 * (`sqliteNow`). statement_timestamp(), not clock_timestamp(): it is fixed for the statement
 * (STABLE), so the planner can treat "lease expired" as a constant and keep the index scans of
 * dueOrigins(); with the VOLATILE clock_timestamp() it evaluated the EXISTS as a sequential scan
 * of the table (12× a primary-key read at 20k rows). A lease is set and checked by single
 * statements, so the statement's start is the right instant for both.
 */
function leaseNow(dialect: Dialect, sqliteNow: number): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from statement_timestamp()) * 1000)::bigint`
    : sql<number>`${sqliteNow}`;
}

/**
 * SQLite's planner, without statistics, prefers a (status, …) listing index for these
 * queries and then sorts every pending row; name the partial index it must use. PostgreSQL
 * has no other index on pending rows by due time, so it picks this one by itself.
 */
function useIndex(dialect: Dialect, index: 'outbox_pending_origin'): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql.raw(` indexed by ${index}`) : sql``;
}

/** "Due and free" for the row alias `e`. */
function dueAndFree(now: number, leaseClock: RawBuilder<number>): RawBuilder<boolean> {
  return sql<boolean>`e.status = 'pending' and e.next_attempt_at <= ${now}
    and (e.lease_expires_at is null or e.lease_expires_at <= ${leaseClock})`;
}

/** What the lease write needs, as plain data: on SQLite it travels to the writer thread as a store job. */
export type LeaseArgs = {
  /** Origins in claim order, and how many of each one's oldest due, free events to take. */
  plan: Array<{ origin: string; take: number }>;
  owner: string;
  /** Due when next_attempt_at <= now. */
  now: number;
  /** SQLite's lease clock (PostgreSQL uses its own). */
  leaseNow: number;
  leaseMs: number;
};

/**
 * Leases the planned events to `owner`: one statement, returning the rows it leased.
 * PostgreSQL: FOR UPDATE SKIP LOCKED, so concurrent claims by several instances get disjoint
 * sets without waiting on each other.
 */
export async function leaseEvents(db: Db | Trx, dialect: Dialect, args: LeaseArgs): Promise<OutboxEvent[]> {
  const lock = dialect === 'postgres' ? sql` for update skip locked` : sql``;
  const clock = leaseNow(dialect, args.leaseNow);
  const ix = useIndex(dialect, 'outbox_pending_origin');
  // Ordered exactly as outbox_pending_origin (origin is fixed here, so the order is the same):
  // the planner then reads the origin's rows in index order and stops at the limit, instead of
  // walking the global due index past other origins' rows.
  const picks = args.plan.map(
    ({ origin, take }, i) =>
      sql`select id from (select e.id from outbox_events e${ix} where e.origin = ${origin}
        and ${dueAndFree(args.now, clock)} order by e.origin, e.next_attempt_at, e.id
        limit ${sql.lit(take)}${lock}) as ${sql.ref(`p${i}`)}`,
  );
  const result = await sql<Selectable<OutboxEventsTable>>`
    update outbox_events
    set lease_owner = ${args.owner}, lease_expires_at = ${clock} + ${args.leaseMs}
    where id in (${sql.join(picks, sql` union all `)})
    returning *`.execute(db);
  return result.rows.map(eventFromRow);
}

/**
 * The lease write as a store job (store/sqlite/jobs.ts). On SQLite it commits in a group with the
 * initiations and completions around it: run as its own autocommit statement it was one more
 * fsync per claim, ~400 µs of the writer thread each (docs/performance.md).
 */
export function leaseEventsIn(trx: Trx, args: LeaseArgs): Promise<OutboxEvent[]> {
  return leaseEvents(trx, 'sqlite', args);
}

export class OutboxClaimsRepo {
  readonly #db: Db;
  readonly #dialect: Dialect;
  readonly #lease: (args: LeaseArgs) => Promise<OutboxEvent[]>;

  /** `lease` runs the lease write elsewhere (SQLite: the `leaseOutboxEvents` store job); by default on `db`. */
  constructor(db: Db, dialect: Dialect, lease?: (args: LeaseArgs) => Promise<OutboxEvent[]>) {
    this.#db = db;
    this.#dialect = dialect;
    this.#lease = lease ?? ((args) => leaseEvents(db, dialect, args));
  }

  #use(index: 'outbox_pending_origin'): RawBuilder<unknown> {
    return useIndex(this.#dialect, index);
  }

  /** "Due and free" for the row alias `e`, on this instance's lease clock. */
  #dueAndFree(now: number): RawBuilder<boolean> {
    return dueAndFree(now, leaseNow(this.#dialect, Date.now()));
  }

  /**
   * CTE `name`: the origins that have pending events, in order after `after` (and before `until`): one index
   * seek each.
   */
  #pendingOrigins(name: string, after: string, max: number, until?: string): RawBuilder<unknown> {
    const ix = this.#use('outbox_pending_origin');
    const o = sql.ref(name);
    const stop = until === undefined ? sql`` : sql` and ${o}.origin < ${until}`;
    return sql`${o}(origin, n) as (
        select (select e.origin from outbox_events e${ix} where e.status = 'pending' and e.origin > ${after}
          order by e.origin limit 1), 1
        union all
        select (select e.origin from outbox_events e${ix} where e.status = 'pending' and e.origin > ${o}.origin
          order by e.origin limit 1), ${o}.n + 1
        from ${o} where ${o}.origin is not null and ${o}.n < ${sql.lit(max)}${stop}
      )`;
  }

  /**
   * "Has a due, free event" for the origin column `origin`: one more seek, past at most the origin's in-flight
   * (leased) rows.
   */
  #hasDue(origin: RawBuilder<unknown>, now: number): RawBuilder<boolean> {
    return sql<boolean>`exists (select 1 from outbox_events e${this.#use('outbox_pending_origin')}
      where e.origin = ${origin} and ${this.#dueAndFree(now)})`;
  }

  /**
   * Origins with at least one due, free event, in origin order after `after` (exclusive), then
   * wrapping around to the ones up to `after`, at most `max` in all: one statement. Each step of
   * the recursions is one seek in the partial origin index; the EXISTS is one more.
   */
  async dueOrigins(now: number, after: string, max = MAX_ORIGINS_PER_CLAIM): Promise<string[]> {
    const tail = sql`select origin, 0 as part from a where origin is not null and ${this.#hasDue(sql`a.origin`, now)}`;
    const query =
      after === ''
        ? sql<{ origin: string }>`with recursive ${this.#pendingOrigins('a', '', max)} ${tail} order by origin`
        : sql<{
            origin: string;
          }>`with recursive ${this.#pendingOrigins('a', after, max)}, ${this.#pendingOrigins('b', '', max, after)}
            select origin from (${tail}
              union all
              select origin, 1 as part from b where origin is not null and origin <= ${after}
                and ${this.#hasDue(sql`b.origin`, now)}) as due
            order by part, origin`;
    const result = await query.execute(this.#db);
    return result.rows.slice(0, max).map((r) => r.origin);
  }

  /**
   * Leases up to `limit` due events, visiting origins round robin from `after` and taking from
   * each at most what `allowance` permits. PostgreSQL: FOR UPDATE SKIP LOCKED, so concurrent
   * claims by several instances get disjoint sets without waiting on each other.
   */
  async claim(options: FairClaimOptions): Promise<FairClaim> {
    if (options.limit <= 0)
      return { events: [], lastOrigin: options.after, leftBehind: [], exhausted: [], truncated: true };
    const origins = options.origins ?? (await this.dueOrigins(options.now, options.after ?? ''));
    const plan: Array<{ origin: string; take: number }> = [];
    const skipped: string[] = [];
    let left = options.limit;
    let truncated = !options.origins && origins.length >= MAX_ORIGINS_PER_CLAIM;
    for (const origin of origins) {
      if (left <= 0) {
        truncated = true;
        break;
      }
      const allowance = options.allowance(origin);
      if (allowance <= 0) {
        skipped.push(origin);
        continue;
      }
      const take = Math.min(allowance, left);
      plan.push({ origin, take });
      left -= take;
    }
    if (plan.length === 0)
      return { events: [], lastOrigin: options.after, leftBehind: skipped, exhausted: [], truncated };
    const leased = await this.#lease({
      plan,
      owner: options.owner,
      now: options.now,
      leaseNow: Date.now(),
      leaseMs: options.leaseMs,
    });
    const events = leased.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1));
    const got = new Map<string, number>();
    for (const event of events) got.set(event.origin, (got.get(event.origin) ?? 0) + 1);
    const leftBehind = [...skipped];
    const exhausted: string[] = [];
    for (const { origin, take } of plan) ((got.get(origin) ?? 0) >= take ? leftBehind : exhausted).push(origin);
    return { events, lastOrigin: plan[plan.length - 1]!.origin, leftBehind, exhausted, truncated };
  }

  /**
   * The origins of these events that are still pending, and whether any of them is not in the
   * store at all (not visible to this connection yet). A plain indexed read by primary key:
   * on SQLite it runs on the read connection, without waiting for the writer.
   */
  async originsOf(ids: readonly string[]): Promise<{ origins: string[]; missing: boolean }> {
    if (ids.length === 0) return { origins: [], missing: false };
    const rows = await this.#db
      .selectFrom('outbox_events')
      .select(['id', 'origin', 'target_url', 'status'])
      .where('id', 'in', ids)
      .execute();
    const origins = new Set<string>();
    for (const row of rows) if (row.status === 'pending') origins.add(row.origin ?? originOf(row.target_url));
    return { origins: [...origins], missing: rows.length < new Set(ids).size };
  }

  /** Gives leased events back untouched (claimed but not sent). */
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .updateTable('outbox_events')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('id', 'in', ids)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Every lease `owner` still holds (graceful stop). */
  async releaseAllOf(owner: string): Promise<number> {
    const result = await this.#db
      .updateTable('outbox_events')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0n);
  }

  /**
   * Every lease, whoever holds it. Only for SQLite at start-up: one process owns the file, so a
   * lease left behind belongs to a predecessor that died, and waiting for it to expire would
   * only delay its deliveries.
   */
  async releaseAll(): Promise<number> {
    const result = await this.#db
      .updateTable('outbox_events')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('lease_owner', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0n);
  }

  /**
   * Earliest next_attempt_at among pending events nobody holds, for the worker's next wake-up:
   * each origin's first unleased pending event (index order, past at most its in-flight rows),
   * and the earliest of those. O(origins with pending events), whatever the backlog.
   */
  async nextDueAt(): Promise<number | null> {
    const result = await sql<{ at: number | string | null }>`with recursive ${this.#pendingOrigins('o', '', 100_000)}
      select min((select e.next_attempt_at from outbox_events e${this.#use('outbox_pending_origin')}
                  where e.origin = o.origin and e.status = 'pending' and e.lease_owner is null
                  order by e.origin, e.next_attempt_at limit 1)) as at
      from o where origin is not null`.execute(this.#db);
    const at = result.rows[0]?.at;
    return at === undefined || at === null ? null : toNumber(at);
  }
}
