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
import { DAY, logIn, seedConsolePayments } from './console-seed.ts';

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
const log = (text: string) => process.stderr.write(`${text}\n`);

const idOf = (i: number) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;

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
    await seedConsolePayments(databaseUrl, start, ROWS);
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
      const repo = new ConsolePaymentsRepo(store.db, async () => {}); // plans only: nothing is queued
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
