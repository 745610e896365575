// Query plans of the request path's one-row lookups (status by trackid or transactionid, the
// hosted page by redirect id) and of the CLI's notification list, on a store holding `--rows`
// transactions and as many notification events (mostly delivered, 1 % failed, 0.1 % pending),
// generated inside the database. The lists' SQL is captured from the
// repositories as they issue it; the PostgreSQL lookups are the named statements the gateway
// prepares (src/store/pg-transaction-lookups.ts).
//
//   node_modules/.bin/node bench/lookup-explain.ts [--store sqlite|postgres] [--rows 1000000]
//
// PostgreSQL: EXPLAIN (ANALYZE, BUFFERS, COSTS OFF); SQLite: EXPLAIN QUERY PLAN plus the time of one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kysely, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/store/database.ts';
import { openStoreEngine } from '../src/store/engine.ts';
import { NodeSqliteDialect, openSqlite } from '../src/store/sqlite/dialect.ts';
import { createPostgresDialect, createPostgresPool } from '../src/store/postgres/pool.ts';
import { OutboxRepo } from '../src/store/repos/outbox.repo.ts';
import { RefundsRepo } from '../src/store/repos/refunds.repo.ts';
import { TransactionsRepo } from '../src/store/repos/transactions.repo.ts';
import { PG_TRANSACTION_LOOKUPS } from '../src/store/postgres/transaction-lookups.ts';
import { createBenchDatabase } from './postgres-database.ts';
import { seedRows } from './seed-rows.ts';

const { values } = parseArgs({
  options: { store: { type: 'string', default: 'sqlite' }, rows: { type: 'string', default: '1000000' } },
});
const dialect = values.store === 'postgres' ? 'postgres' : 'sqlite';
const rows = Math.max(1000, Math.min(5_000_000, Number(values.rows)));
const merchant = 'M-explain';
const log = (line: string) => console.log(line);

const dir = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'gw-lookup-explain-')) : '';
const pgdb = dialect === 'postgres' ? await createBenchDatabase() : undefined;
const url = pgdb ? pgdb.url : `sqlite:${join(dir, 'gateway.db')}`;

/** Events for every seeded transaction: delivered, every 100th failed, every 1000th pending. */
function outboxSeedSql(): string {
  const n = dialect === 'sqlite' ? `cast(substr(trackid, 6) as integer)` : `substr(trackid, 6)::int`;
  const status = `case when ${n} % 1000 = 0 then 'pending' when ${n} % 100 = 0 then 'failed' else 'delivered' end`;
  return `insert into outbox_events (id, transaction_id, merchant_id, target_url, origin, payload, status, attempts,
      next_attempt_at, series, created_at, delivered_at)
    select 'evt_' || id, id, merchant_id, server_url, 'https://shop.example.co.th', '{}', ${status}, 1,
      created_at + 5000, 1, created_at + 1000, created_at + 1005
    from transactions where trackid like 'seed-%'`;
}

try {
  const store = openStoreEngine(url);
  await store.migrate();
  await store.db
    .insertInto('merchants')
    .values(
      [merchant, 'M-small'].map((id) => ({
        id,
        name: id,
        password_hash: 'x',
        webhook_secret_enc: 'x',
        payout_currency: 'THB',
        payout_account: '1',
        fee_rate_ppm: 0n,
        status: 'active' as const,
        created_at: 0,
        updated_at: 0,
      })),
    )
    .execute();
  await store.close();
  const started = Date.now();
  await seedRows(url, merchant, rows);
  if (dialect === 'sqlite') {
    const db = openSqlite({ path: url.slice('sqlite:'.length) });
    db.exec('begin');
    db.exec(outboxSeedSql());
    db.exec('commit');
    db.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(outboxSeedSql());
    await client.query('analyze');
    await client.end();
  }
  log(
    `Seeded ${rows.toLocaleString('en-US')} transactions and as many notification events (${dialect}) ` +
      `in ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );

  // The repositories' own SQL, captured as Kysely compiles it.
  const captured: CompiledQuery[] = [];
  const pool = dialect === 'postgres' ? createPostgresPool(url, 2) : undefined;
  const db = new Kysely<Database>({
    dialect: pool ? createPostgresDialect(pool) : new NodeSqliteDialect({ path: url.slice('sqlite:'.length) }),
    log: (event) => {
      if (event.level === 'query') captured.push(event.query);
    },
  });
  const capture = async (run: () => Promise<unknown>): Promise<{ sql: string; parameters: readonly unknown[] }> => {
    captured.length = 0;
    await run();
    const last = captured.at(-1);
    if (!last) throw new Error('no query captured');
    return { sql: last.sql, parameters: last.parameters };
  };
  const middle = Math.floor(rows / 2);
  const middleId = `seed-${String(middle).padStart(12, '0')}`;
  const cursor = {
    createdAt: Number(
      (
        await db
          .selectFrom('outbox_events')
          .select('created_at')
          .where('id', '=', `evt_${middleId}`)
          .executeTakeFirstOrThrow()
      ).created_at,
    ),
    id: `evt_${middleId}`,
  };
  const outbox = new OutboxRepo(db, dialect);
  const repo = new TransactionsRepo(db); // no pool: the Kysely form (SQLite's lookups)
  const { redirect_id: redirectId, trackid } = await db
    .selectFrom('transactions')
    .select(['redirect_id', 'trackid'])
    .where('id', '=', middleId)
    .executeTakeFirstOrThrow();

  const queries: Array<{ label: string; sql: string; parameters: readonly unknown[] }> = [];
  if (dialect === 'postgres') {
    queries.push({
      label: 'status by trackid (named statement)',
      sql: PG_TRANSACTION_LOOKUPS.byTrackid.text,
      parameters: [merchant, trackid],
    });
    queries.push({
      label: 'status by transactionid (named statement)',
      sql: PG_TRANSACTION_LOOKUPS.byId.text,
      parameters: [merchant, middleId],
    });
    queries.push({
      label: 'hosted page by a keyed redirect id: the id it carries (named statement)',
      sql: PG_TRANSACTION_LOOKUPS.byPrimaryKey.text,
      parameters: [middleId],
    });
    queries.push({
      label: 'hosted page by a redirect id of the earlier form (named statement)',
      sql: PG_TRANSACTION_LOOKUPS.byLegacyRedirectId.text,
      parameters: [redirectId],
    });
    // The batched forms (the lookups of one event-loop turn), with 16 keys spread over the table.
    const spread = await db
      .selectFrom('transactions')
      .select(['id', 'trackid', 'redirect_id'])
      .where(
        'id',
        'in',
        Array.from({ length: 16 }, (_, i) => `seed-${String(Math.floor(((i + 0.5) * rows) / 16)).padStart(12, '0')}`),
      )
      .execute();
    const merchants = spread.map(() => merchant);
    queries.push({
      label: 'status by 16 trackids (one batch)',
      sql: PG_TRANSACTION_LOOKUPS.byTrackids.text,
      parameters: [merchants, spread.map((r) => r.trackid)],
    });
    queries.push({
      label: 'status by 16 transactionids (one batch)',
      sql: PG_TRANSACTION_LOOKUPS.byIds.text,
      parameters: [merchants, spread.map((r) => r.id)],
    });
    queries.push({
      label: 'hosted page by 16 keyed redirect ids (one batch)',
      sql: PG_TRANSACTION_LOOKUPS.byPrimaryKeys.text,
      parameters: [spread.map((r) => r.id)],
    });
    queries.push({
      label: 'hosted page by 16 redirect ids of the earlier form (one batch)',
      sql: PG_TRANSACTION_LOOKUPS.byLegacyRedirectIds.text,
      parameters: [spread.map((r) => r.redirect_id)],
    });
  } else {
    queries.push({ label: 'status by trackid', ...(await capture(() => repo.findByTrackid(merchant, trackid))) });
    queries.push({ label: 'status by transactionid', ...(await capture(() => repo.findById(merchant, middleId))) });
    queries.push({
      label: 'hosted page by a keyed redirect id (the id it carries)',
      ...(await capture(() => repo.findByRedirectId(redirectId, middleId))),
    });
    queries.push({
      label: 'hosted page by a redirect id of the earlier form',
      ...(await capture(() => repo.findByRedirectId(redirectId, undefined))),
    });
  }
  queries.push({
    label: 'delivery list (no filter, first page)',
    ...(await capture(() => outbox.list({ limit: 100 }))),
  });
  queries.push({
    label: 'delivery list --cursor (no filter, row N/2)',
    ...(await capture(() => outbox.list({ limit: 100, before: cursor }))),
  });
  queries.push({
    label: 'delivery list --status failed',
    ...(await capture(() => outbox.list({ limit: 100, status: 'failed' }))),
  });
  queries.push({
    label: 'delivery list --status pending --cursor (row N/2)',
    ...(await capture(() => outbox.list({ limit: 100, status: 'pending', before: cursor }))),
  });
  queries.push({
    label: 'delivery list --merchant M-small (no rows)',
    ...(await capture(() => outbox.list({ limit: 100, merchantId: 'M-small' }))),
  });
  // SQLite only: its plan does not depend on the table's size (no statistics); PostgreSQL's plan of an empty table
  // says nothing.
  if (dialect === 'sqlite')
    queries.push({
      label: 'refund list (no filter; the table is empty here)',
      ...(await capture(() => new RefundsRepo(db).list({ limit: 100 }))),
    });
  await db.destroy();

  if (dialect === 'sqlite') {
    const sqlite = openSqlite({ path: url.slice('sqlite:'.length) });
    for (const q of queries) {
      const params = q.parameters as Array<string | number | bigint | null>;
      const plan = sqlite.prepare(`explain query plan ${q.sql}`).all(...params) as Array<{ detail: string }>;
      const statement = sqlite.prepare(q.sql);
      const t0 = performance.now();
      const found = statement.all(...params).length;
      const ms = performance.now() - t0;
      log(`\n${q.label}: ${found} rows, ${ms.toFixed(2)} ms`);
      for (const p of plan) log(`    ${p.detail}`);
    }
    sqlite.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const q of queries) {
      const result = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${q.sql}`, [
        ...q.parameters,
      ]);
      log(`\n${q.label}:`);
      for (const r of result.rows) log(`    ${r['QUERY PLAN']}`);
    }
    await client.end();
  }
  log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  if (pgdb) await pgdb.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
