// PostgreSQL: the request path's lookups of one transaction (status by trackid or id, the hosted
// page by the transaction id its redirect id carries or by an id of the earlier form), as named
// prepared statements, batched per event-loop turn.
//
// - Named: through Kysely every lookup is an unnamed statement that PostgreSQL parses and plans
//   again each time; a named one is parsed once per pooled connection and its plan is reused.
//   bench/pg-named-statements.ts on this machine: ~5–15 µs less CPU in Node and ~15–20 µs less in
//   the PostgreSQL backend per lookup.
// - Batched: the lookups of one kind asked for in one event-loop turn (under load, several
//   requests are parsed per turn) go out as one statement over arrays of keys, so a round trip,
//   a pooled connection and pg's per-query work are shared; a lone lookup uses the one-key
//   statement. Each caller gets the row of its own key (or none), exactly as alone.
//
// The names carry a version: a changed text needs a new name (pg refuses to reuse a name for
// another text on a connection that prepared it). The statements select `*`: migrations run
// before the gateway serves, so the row type of a prepared statement does not change under a
// running process.
import { PerTurnBatches, type Pending as PendingOf } from './per-turn-batches.ts';
import type { Selectable } from 'kysely';
import type pg from 'pg';
import type { TransactionsTable } from '../database.ts';
import { isStoreUnavailable } from '../store-unavailable.ts';
import { LEGACY_REDIRECT_ID } from '../migrations/019-keyed-identifiers.ts';

type Row = Selectable<TransactionsTable>;
type CompletionRow = Row & { fee_rate_ppm: string };
type Statement = { readonly name: string; readonly text: string };

/** Exported for bench/lookup-explain.ts (the plans of exactly these statements). */
export const PG_TRANSACTION_LOOKUPS = {
  byTrackid: {
    name: 'transactions_by_trackid_v1',
    text: 'select * from transactions where merchant_id = $1 and trackid = $2',
  },
  byTrackids: {
    name: 'transactions_by_trackids_v1',
    text:
      'select t.* from transactions t join unnest($1::text[], $2::text[]) as k(merchant_id, trackid) ' +
      'on t.merchant_id = k.merchant_id and t.trackid = k.trackid',
  },
  byId: { name: 'transactions_by_id_v1', text: 'select * from transactions where merchant_id = $1 and id = $2' },
  byIds: {
    name: 'transactions_by_ids_v1',
    text:
      'select t.* from transactions t join unnest($1::text[], $2::text[]) as k(merchant_id, id) ' +
      'on t.merchant_id = k.merchant_id and t.id = k.id',
  },
  /** The hosted page: the row a keyed redirect id names (domain/keyed-ids.ts), by primary key. */
  byPrimaryKey: { name: 'transactions_by_primary_key_v1', text: 'select * from transactions where id = $1' },
  byPrimaryKeys: {
    name: 'transactions_by_primary_keys_v1',
    text: 'select * from transactions where id = any($1::text[])',
  },
  /** The hosted page: a redirect id issued before migration 019, in that migration's partial index. */
  byLegacyRedirectId: {
    name: 'transactions_by_legacy_redirect_id_v1',
    text: `select * from transactions where redirect_id = $1 and ${LEGACY_REDIRECT_ID}`,
  },
  byLegacyRedirectIds: {
    name: 'transactions_by_legacy_redirect_ids_v1',
    text: `select * from transactions where redirect_id = any($1::text[]) and ${LEGACY_REDIRECT_ID}`,
  },
  /** A completion's read: the row and its merchant's fee rate as of now. */
  forCompletion: {
    name: 'completions_read_one_v1',
    text: 'select t.*, m.fee_rate_ppm from transactions t join merchants m on m.id = t.merchant_id where t.id = $1',
  },
  forCompletions: {
    name: 'completions_read_v1',
    text:
      'select t.*, m.fee_rate_ppm from transactions t join merchants m on m.id = t.merchant_id ' +
      'where t.id = any($1::text[])',
  },
} as const satisfies Record<string, Statement>;

const MAX_BATCH = 256;
/** Lookup statements in flight at once; more lookups wait and go together (per-turn-batches.ts). */
const MAX_IN_FLIGHT = 4;

/** One kind of lookup: its one-key and its many-keys statement, and how a row names its key. */
class LookupBatch<R extends pg.QueryResultRow = Row> {
  readonly #pool: pg.Pool;
  readonly #one: Statement;
  readonly #many: Statement;
  readonly #keysOf: (row: R) => readonly string[];
  readonly #batches = new PerTurnBatches<readonly string[], R | undefined>(MAX_BATCH, MAX_IN_FLIGHT, (batch) =>
    this.#run(batch),
  );

  constructor(pool: pg.Pool, one: Statement, many: Statement, keysOf: (row: R) => readonly string[]) {
    this.#pool = pool;
    this.#one = one;
    this.#many = many;
    this.#keysOf = keysOf;
  }

  find(keys: readonly string[]): Promise<R | undefined> {
    return this.#batches.add(keys);
  }

  /** pg-pool's query() releases the client with the error when one occurs, so a broken connection is discarded. */
  async #run(batch: Array<PendingOf<readonly string[], R | undefined>>): Promise<void> {
    if (batch.length === 1) return this.#alone(batch[0]!);
    try {
      // One array per key column: [[merchant1, merchant2, …], [trackid1, trackid2, …]].
      const arrays = batch[0]!.input.map((_, column) => batch.map((p) => p.input[column]!));
      const result = await this.#pool.query<R>({ ...this.#many, values: arrays });
      const byKey = new Map<string, R>();
      for (const row of result.rows) byKey.set(this.#keysOf(row).join('\u0000'), row);
      for (const p of batch) p.resolve(byKey.get(p.input.join('\u0000')));
    } catch (error) {
      // One bad key (say, bytes PostgreSQL refuses) must not fail its neighbours: unless the
      // store is down, each lookup goes alone and gets its own answer or error.
      if (isStoreUnavailable(error)) for (const p of batch) p.reject(error);
      else for (const p of batch) void this.#alone(p);
    }
  }

  async #alone(p: PendingOf<readonly string[], R | undefined>): Promise<void> {
    try {
      const result = await this.#pool.query<R>({ ...this.#one, values: [...p.input] });
      p.resolve(result.rows[0]);
    } catch (error) {
      p.reject(error);
    }
  }
}

export class PgTransactionLookups {
  readonly #byTrackid: LookupBatch;
  readonly #byId: LookupBatch;
  readonly #byPrimaryKey: LookupBatch;
  readonly #byLegacyRedirectId: LookupBatch;
  readonly #forCompletion: LookupBatch<CompletionRow>;

  constructor(pool: pg.Pool) {
    const q = PG_TRANSACTION_LOOKUPS;
    this.#byTrackid = new LookupBatch(pool, q.byTrackid, q.byTrackids, (row) => [row.merchant_id, row.trackid]);
    this.#byId = new LookupBatch(pool, q.byId, q.byIds, (row) => [row.merchant_id, row.id]);
    this.#byPrimaryKey = new LookupBatch(pool, q.byPrimaryKey, q.byPrimaryKeys, (row) => [row.id]);
    this.#byLegacyRedirectId = new LookupBatch(pool, q.byLegacyRedirectId, q.byLegacyRedirectIds, (row) => [
      row.redirect_id,
    ]);
    this.#forCompletion = new LookupBatch<CompletionRow>(pool, q.forCompletion, q.forCompletions, (row) => [row.id]);
  }

  byTrackid(merchantId: string, trackid: string): Promise<Row | undefined> {
    return this.#byTrackid.find([merchantId, trackid]);
  }

  byId(merchantId: string, id: string): Promise<Row | undefined> {
    return this.#byId.find([merchantId, id]);
  }

  byPrimaryKey(id: string): Promise<Row | undefined> {
    return this.#byPrimaryKey.find([id]);
  }

  byLegacyRedirectId(redirectId: string): Promise<Row | undefined> {
    return this.#byLegacyRedirectId.find([redirectId]);
  }

  forCompletion(id: string): Promise<CompletionRow | undefined> {
    return this.#forCompletion.find([id]);
  }
}
