// Query plans of the completion's statements and of a summed account's balance, on a
// store holding `--rows` transactions and `--rows` postings to the summed fee and clearing
// accounts (half an entry's worth each: fee +x, clearing −x), generated inside the database.
//
//   node_modules/.bin/node bench/ledger-explain.ts [--store sqlite|postgres] [--rows 1000000]
//
// PostgreSQL: EXPLAIN (ANALYZE, BUFFERS) inside a transaction that is rolled back; SQLite:
// EXPLAIN QUERY PLAN plus the time of one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openStoreEngine } from '../src/store/engine.ts';
import { openSqlite } from '../src/store/sqlite/dialect.ts';
import { createBenchDatabase } from './postgres-database.ts';
import { seedRows } from './seed-rows.ts';

const { values } = parseArgs({
  options: { store: { type: 'string', default: 'sqlite' }, rows: { type: 'string', default: '1000000' } },
});
const dialect = values.store === 'postgres' ? 'postgres' : 'sqlite';
const rows = Math.max(1000, Math.min(5_000_000, Number(values.rows)));
const merchant = 'M-explain';

const dir = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'gw-explain-')) : '';
const pgdb = dialect === 'postgres' ? await createBenchDatabase() : undefined;
const url = pgdb ? pgdb.url : `sqlite:${join(dir, 'gateway.db')}`;
try {
  const store = openStoreEngine(url);
  await store.migrate();
  await store.db
    .insertInto('merchants')
    .values({
      id: merchant,
      name: 'explain',
      password_hash: 'x',
      webhook_secret_enc: 'x',
      payout_currency: 'THB',
      payout_account: '1',
      fee_rate_ppm: 25_000n,
      status: 'active',
      created_at: 0,
      updated_at: 0,
    })
    .execute();
  // Other merchants, so the planner sees a merchants table of realistic size.
  await store.db
    .insertInto('merchants')
    .values(
      Array.from({ length: 999 }, (_, i) => ({
        id: `M-other-${i}`,
        name: 'other',
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
  for (const kind of ['gateway_fee', 'gateway_clearing']) {
    await store.db
      .insertInto('ledger_accounts')
      .values({
        id: `${kind}:gateway:THB`,
        kind: kind as 'gateway_fee',
        merchant_id: null,
        currency: 'THB',
        balance_minor: 0n,
        posting_count: 0n,
        created_at: 0,
      })
      .execute();
  }
  await store.close();
  const started = Date.now();
  await seedRows(url, merchant, rows);
  const entries = Math.floor(rows / 2);
  // Entries first would be refused (an entry needs its postings), so postings then entries, per chunk, each chunk one
  // transaction.
  const postingsSql = (from: string, to: string, seq: string) =>
    `insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor,
       created_at)
     select 'e-' || i, l, case l when 1 then 'gateway_fee:gateway:THB' else 'gateway_clearing:gateway:THB' end, 'THB',
       case l when 1 then 100 else -100 end, null, null, i
     from ${seq} as i, (select 1 as l union all select 2) as lines where i between ${from} and ${to}`;
  const entriesSql = (from: string, to: string, seq: string) =>
    `insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason, created_at)
     select 'e-' || i, 'credit', '${merchant}', null, 'k-' || i, 'seed', i from ${seq} as i
     where i between ${from} and ${to}`;
  if (dialect === 'sqlite') {
    const db = openSqlite({ path: url.slice('sqlite:'.length) });
    db.exec(`create temp table seq(i integer primary key)`);
    db.exec(
      `with recursive n(i) as (select 1 union all select i + 1 ` +
        `from n where i < ${entries}) insert into seq select i from n`,
    );
    for (let from = 1; from <= entries; from += 100_000) {
      const to = Math.min(entries, from + 99_999);
      db.exec('begin');
      db.exec(postingsSql(String(from), String(to), '(select i from temp.seq)'));
      db.exec(entriesSql(String(from), String(to), '(select i from temp.seq)'));
      db.exec('commit');
    }
    db.exec('analyze');
    const plans: Array<[string, string, unknown[]]> = [
      [
        'summed balance (clearing)',
        `select a.balance_minor + coalesce((select sum(u.amount_minor) from postings u ` +
          `where u.account_id = a.id and u.account_seq is null), 0) from ledger_accounts a where a.id = ?`,
        ['gateway_clearing:gateway:THB'],
      ],
      [
        'completion: lock + fee rate',
        `select t.*, m.fee_rate_ppm from transactions t inner join merchants m on m.id = t.merchant_id where t.id = ?`,
        ['seed-000000500000'],
      ],
      [
        'completion: next transition seq',
        `select coalesce(max(seq), 0) + 1 from transaction_transitions where transaction_id = ?`,
        ['seed-000000500000'],
      ],
      [
        'ledger: lock chained accounts',
        `select id, kind, currency, balance_minor, posting_count from ledger_accounts where id in (?) order by id`,
        [`merchant_payout:${merchant}:THB`],
      ],
    ];
    console.log(
      `SQLite, ${rows} transactions, ${entries * 2} postings to fee and clearing ` +
        `(seeded in ${((Date.now() - started) / 1000).toFixed(0)} s), load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    for (const [name, query, params] of plans) {
      const plan = db.prepare(`explain query plan ${query}`).all(...(params as string[]));
      const t = performance.now();
      db.prepare(query).all(...(params as string[]));
      const ms = performance.now() - t;
      console.log(`\n${name} (${ms.toFixed(2)} ms):\n${plan.map((p: any) => `  ${p.detail}`).join('\n')}`);
    }
    db.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (let from = 1; from <= entries; from += 100_000) {
      const to = Math.min(entries, from + 99_999);
      await client.query('begin');
      await client.query(postingsSql(String(from), String(to), 'generate_series(1, ' + entries + ')'));
      await client.query(entriesSql(String(from), String(to), 'generate_series(1, ' + entries + ')'));
      await client.query('commit');
    }
    await client.query('vacuum analyze');
    console.log(
      `PostgreSQL, ${rows} transactions, ${entries * 2} postings to fee and clearing ` +
        `(seeded in ${((Date.now() - started) / 1000).toFixed(0)} s), load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    const plans: Array<[string, string, unknown[]]> = [
      [
        'summed balance (clearing)',
        `select a.balance_minor + coalesce((select sum(u.amount_minor) from postings u ` +
          `where u.account_id = a.id and u.account_seq is null), 0) from ledger_accounts a where a.id = $1`,
        ['gateway_clearing:gateway:THB'],
      ],
      [
        'completion: lock + fee rate',
        `select t.*, m.fee_rate_ppm from transactions t inner join merchants m on m.id = t.merchant_id ` +
          `where t.id = $1 for update of t`,
        ['seed-000000500000'],
      ],
      [
        'completion: transition insert',
        `insert into transaction_transitions (transaction_id, seq, from_status, to_status, cause, ` +
          `error_code_tag, at) select $1, coalesce(max(seq), 0) + 1, 'PROCESSING', 'SUCCESS', 'sandbox', ` +
          `cast(null as text), cast(1 as bigint) from transaction_transitions where transaction_id = $1`,
        ['seed-000000500000'],
      ],
      [
        'ledger: lock chained accounts',
        `select id, kind, currency, balance_minor, posting_count from ledger_accounts ` +
          `where id in ($1) order by id for update`,
        [`gateway_fee:gateway:THB`],
      ],
    ];
    for (const [name, query, params] of plans) {
      await client.query('begin');
      const result = await client.query(`explain (analyze, buffers) ${query}`, params);
      await client.query('rollback');
      console.log(`\n${name}:\n${result.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
    }
    await client.end();
  }
} finally {
  await pgdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
