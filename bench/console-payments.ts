// The console's payment search with many payments in the store (docs/performance.md "Console search
// indexes"): `node bench/console-payments.ts [--rows 1000000] [--postgres] [--duration 5]
// [--connections 8]`.
//
// Seeds N payments over 30 days (95 % one big merchant, 5 % a small one; states, amounts and
// e-mails varied), starts a real gateway (`serve`, child process), logs in to the console over
// HTTP like a browser, and drives each search with autocannon: first page, a page deep in the
// keyset, by trackid, e-mail, amount, state + date range, and a merchant's own views. The bare
// baseline in the same run is node:http serving the same first-page HTML bytes (no session, no
// store). Then it prints the query plan of every search (EXPLAIN QUERY PLAN / EXPLAIN), which is
// what shows whether a search uses an index or scans.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';
import { openStoreEngine } from '../src/store/engine.ts';
import { ConsolePaymentsRepo } from '../src/store/repos/console-payments.repo.ts';
import { type PaymentSearch } from '../src/app/ports/console.ts';
import { killAllChildren, runNode, startServer } from './children.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad, type LoadResult } from './load.ts';
import { createBenchDatabase, type BenchDatabase } from './postgres-database.ts';
import { httpTable, type Row } from './report.ts';
import { withRawConnection } from './seed-rows.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    postgres: { type: 'boolean' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
  },
});
const ROWS = Number(args.rows);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const DAY = 86_400_000;
const log = (text: string) => process.stderr.write(`${text}\n`);

const idOf = (i: number) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;

/**
 * Seeds inside the database (no client round trips). Row i: created at start + i × 30 days / N,
 * merchant 'small' when i % 20 = 0 else 'big', state FAILED / PROCESSING / SUCCESS for i % 10 =
 * 0 / 1 / other, amount 100.00 + (i % 5000), e-mail buyer<i % 100000>@example.com.
 */
async function seed(databaseUrl: string, start: number): Promise<void> {
  const step = Math.floor((30 * DAY) / ROWS);
  const columns =
    'id, merchant_id, trackid, request_hash, token, redirect_id, status, error_code_tag, ' +
    'error_text, amount_minor, currency, payment_method, bill_country, bill_customerip, ' +
    'bill_email, return_url, server_url, payer_account_no, payer_account_name, ' +
    'payer_bank_code, productdesc, lang, created_at, expires_at, completed_at';
  await withRawConnection(databaseUrl, {
    sqlite: (db) => {
      const insert = db.prepare(
        `with recursive n(i) as (select ? union all select i + 1 from n ` +
          `where i < ?) insert into transactions (${columns}) select ` +
          `printf('00000000-0000-7000-8000-%012x', i), case when i % 20 = 0 then 'small' else 'big' end, ` +
          `'seed-' || i, hex(randomblob(16)), hex(randomblob(24)), hex(randomblob(18)), ` +
          `case i % 10 when 0 then 'FAILED' when 1 then 'PROCESSING' else 'SUCCESS' end, ` +
          `case i % 10 when 0 then 'DECLINED' else null end, null, ` +
          `(100 + i % 5000) * 10000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.0.113.7', 'buyer' || (i % 100000) || '@example.com', 'https://shop.example/return', ` +
          `'https://shop.example/hook', '1234567890', 'Somchai', 'SCB', null, 'th', ` +
          `? + i * ?, ? + i * ? + 900000, case i % 10 when 1 then null else ? + i * ? + 1000 end from n`,
      );
      for (let from = 1; from <= ROWS; from += 100_000) {
        db.exec('begin');
        insert.run(from, Math.min(ROWS, from + 99_999), start, step, start, step, start, step);
        db.exec('commit');
      }
      db.exec('analyze');
    },
    postgres: async (client) => {
      await client.query(
        `insert into transactions (${columns}) select ` +
          `'00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'), ` +
          `case when i % 20 = 0 then 'small' else 'big' end, 'seed-' || i, md5(random()::text), ` +
          `md5(random()::text) || md5(i::text), md5(i::text || random()::text), ` +
          `case i % 10 when 0 then 'FAILED' when 1 then 'PROCESSING' else 'SUCCESS' end, ` +
          `case i % 10 when 0 then 'DECLINED' else null end, null, ` +
          `(100 + i % 5000) * 10000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.0.113.7', 'buyer' || (i % 100000) || '@example.com', 'https://shop.example/return', ` +
          `'https://shop.example/hook', '1234567890', 'Somchai', 'SCB', null, 'th', ` +
          `$1::bigint + i * $2::bigint, $1::bigint + i * $2::bigint + 900000, ` +
          `case i % 10 when 1 then null else $1::bigint + i * $2::bigint + 1000 end ` +
          `from generate_series(1, $3::int) as i`,
        [start, step, ROWS],
      );
      await client.query('analyze');
    },
  });
}

/** Cookies a browser would keep: GET the login form, POST it, keep what was set. */
async function logIn(base: string, role: 'operator' | 'merchant', username: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (r: Response) => {
    for (const line of r.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await fetch(`${base}/console/login`);
  keep(form);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const done = await fetch(`${base}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
    body: new URLSearchParams({ csrf, role, username, password, next: '' }).toString(),
  });
  keep(done);
  if (done.status !== 303 || !jar.has('gw_console'))
    throw new Error(`console login as ${username} failed: HTTP ${done.status}`);
  return cookie();
}

function cycle(paths: string[]): () => string {
  let n = 0;
  return () => paths[n++ % paths.length]!;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-console-bench-'));
  let database: BenchDatabase | undefined;
  try {
    database = args.postgres ? await createBenchDatabase() : undefined;
    const databaseUrl = database?.url ?? `sqlite:${join(tmp, 'gateway.db')}`;
    const env = gatewayEnv(databaseUrl, tmp);
    const CLI = 'src/cli/index.ts';
    for (const id of ['big', 'small'])
      await runNode(
        [
          CLI,
          'merchant',
          'create',
          '--id',
          id,
          '--name',
          `Shop ${id}`,
          '--payout-currency',
          'THB',
          '--payout-account',
          '1234567890',
        ],
        env,
      );
    const operator = JSON.parse(
      (await runNode([CLI, 'operator', 'create', '--username', 'bench', '--json'], env)).trim().split('\n').at(-1)!,
    ) as { password: string };
    const small = JSON.parse(
      (await runNode([CLI, 'merchant', 'set-console-password', 'small', '--json'], env)).trim().split('\n').at(-1)!,
    ) as { password: string };
    const start = Date.now() - 30 * DAY;
    const step = Math.floor((30 * DAY) / ROWS);
    const mid = Math.floor(ROWS / 2);
    log(`seeding ${ROWS.toLocaleString('en-US')} payments (${args.postgres ? 'PostgreSQL' : 'SQLite'})…`);
    const seeded = Date.now();
    await seed(databaseUrl, start);
    log(`  seeded in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);

    const server = await startServer([CLI, 'serve'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const rows: Row[] = [];
    let baselineLoad: LoadResult | undefined;
    try {
      const opCookie = await logIn(server.url, 'operator', 'bench', operator.password);
      const smallCookie = await logIn(server.url, 'merchant', 'small', small.password);
      const firstPage = await (await fetch(`${server.url}/console/payments`, { headers: { cookie: opCookie } })).text();
      const html = join(tmp, 'page.html');
      writeFileSync(html, firstPage);

      const rand = (n: number) => Math.floor(Math.random() * n);
      const many = (f: () => string) => Array.from({ length: 500 }, f);
      const day = (ms: number) => new Date(ms + 7 * 3_600_000).toISOString().slice(0, 10);
      const scenarios: Array<{ name: string; cookie: string; paths: string[] }> = [
        { name: 'operator: first page', cookie: opCookie, paths: ['/console/payments'] },
        {
          name: 'operator: page at row N/2 (keyset)',
          cookie: opCookie,
          paths: many(() => {
            const i = mid + rand(1000);
            return `/console/payments?before=${start + i * step}.${idOf(i)}`;
          }),
        },
        {
          name: 'operator: trackid',
          cookie: opCookie,
          paths: many(() => `/console/payments?q=seed-${1 + rand(ROWS)}`),
        },
        {
          name: 'operator: e-mail (~10 rows each)',
          cookie: opCookie,
          paths: many(() => `/console/payments?q=buyer${rand(100_000)}%40example.com`),
        },
        {
          name: 'operator: amount (~200 rows each)',
          cookie: opCookie,
          paths: many(() => `/console/payments?amount=${100 + rand(5000)}.00`),
        },
        {
          name: 'operator: FAILED in one day',
          cookie: opCookie,
          paths: many(() => {
            const d = day(start + (1 + rand(28)) * DAY);
            return `/console/payments?state=FAILED&from=${d}&to=${d}`;
          }),
        },
        { name: 'operator: merchant small, first page', cookie: opCookie, paths: ['/console/payments?merchant=small'] },
        { name: 'merchant small: first page', cookie: smallCookie, paths: ['/console/payments'] },
        {
          name: 'merchant small: e-mail',
          cookie: smallCookie,
          paths: many(() => `/console/payments?q=buyer${rand(100_000)}%40example.com`),
        },
        { name: 'merchant small: PROCESSING', cookie: smallCookie, paths: ['/console/payments?state=PROCESSING'] },
      ];

      const baseline = await startServer(
        ['bench/baseline-html-server.ts'],
        { BASELINE_HTML_FILE: html },
        /listening (http:\/\/127\.0\.0\.1:\d+)/,
      );
      try {
        log(`bare node:http, same HTML (${firstPage.length} bytes): ${DURATION} s`);
        baselineLoad = await runLoad({
          url: baseline.url,
          path: '/',
          method: 'GET',
          connections: CONNECTIONS,
          durationS: DURATION,
          serverPid: baseline.process.pid,
        });
        rows.push({ scenario: 'bare node:http, same HTML', load: baselineLoad });
      } finally {
        await baseline.stop(5000);
      }
      for (const s of scenarios) {
        log(`${s.name}: ${DURATION} s`);
        let sample: string | undefined;
        const load = await runLoad({
          url: server.url,
          path: s.paths[0]!,
          method: 'GET',
          nextPath: cycle(s.paths),
          headers: { cookie: s.cookie },
          connections: CONNECTIONS,
          durationS: DURATION,
          serverPid: server.process.pid,
          onResponse: (status, body) => {
            if (status !== 200 && sample === undefined) sample = `HTTP ${status}: ${body.slice(0, 200)}`;
          },
        });
        if (sample) log(`  first non-200: ${sample}`);
        rows.push({ scenario: s.name, load });
      }
    } finally {
      await server.stop();
    }

    const cores = cpus();
    console.log(
      `\n${ROWS.toLocaleString('en-US')} payments, ${args.postgres ? 'PostgreSQL' : 'SQLite'}; ` +
        `${CONNECTIONS} connections, ${DURATION} s per scenario; ` +
        `${cores.length} × ${cores[0]?.model.trim()}, Node ${process.version}, ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}\n`,
    );
    console.log(
      httpTable(rows, baselineLoad?.rps ?? 0, baselineLoad?.serverUsPerRequest, baselineLoad?.mainThreadUsPerRequest),
    );

    // Query plans of the searches above, as the console issues them.
    const store = openStoreEngine(databaseUrl);
    try {
      const repo = new ConsolePaymentsRepo(store.db);
      const shapes: Array<[string, PaymentSearch]> = [
        ['first page', { limit: 51 }],
        ['keyset page', { limit: 51, before: { createdAt: start + mid * step, id: idOf(mid) } }],
        ['trackid', { limit: 51, trackid: 'seed-12345' }],
        ['e-mail', { limit: 51, email: 'buyer123@example.com' }],
        ['amount', { limit: 51, amountMinor: 1234n * 10_000n }],
        ['state + day', { limit: 51, status: 'FAILED', from: start + 10 * DAY, to: start + 11 * DAY }],
        ['merchant first page', { limit: 51, merchantId: 'small' }],
        ['merchant + e-mail', { limit: 51, merchantId: 'small', email: 'buyer120@example.com' }],
        ['merchant + state', { limit: 51, merchantId: 'small', status: 'PROCESSING' }],
      ];
      console.log('\nQuery plans:');
      for (const [name, search] of shapes) {
        const compiled = repo.searchQuery(search).compile();
        const explain = store.dialect === 'sqlite' ? `explain query plan ${compiled.sql}` : `explain ${compiled.sql}`;
        const result = await store.db.executeQuery<Record<string, unknown>>(
          CompiledQuery.raw(explain, [...compiled.parameters]),
        );
        const lines = result.rows.map((r) => String(r.detail ?? r['QUERY PLAN'] ?? JSON.stringify(r)));
        console.log(`- ${name}:\n    ${lines.join('\n    ')}`);
      }
    } finally {
      await store.close();
    }
  } finally {
    killAllChildren();
    await database?.drop().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
