// A focused bench for two read paths, without the rest of `npm run bench`: the hosted page GET
// (`GET /transaction/Redirect?ID=…`) and the status query (`POST /transaction/status`), each
// beside the bare node:http baseline of `npm run bench` measured in the same run (before and after).
//
//   node bench/page-status.ts [--store sqlite|postgres|both] [--duration S] [--warmup S]
//                             [--connections N] [--only page|status] [--profile] [--gateway-dir DIR]
//
// --profile runs each store's gateway under `node --cpu-prof` and prints where its main thread
// spent the time (start-up and the 500 seeding initiations included, so use --duration ≥ 5).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchMerchant, killAllChildren, startServer } from './children.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad, type LoadResult } from './load.ts';
import { createBenchDatabase, type BenchDatabase } from './postgres-database.ts';
import { formatProfileSummary, summariseProfile } from './profile-summary.ts';
import { httpTable, type Row } from './report.ts';
import { initiationBodyFactory, statusBody } from './request-bodies.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '64' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'gateway-dir': { type: 'string', default: '.' },
  },
});
const durationS = Math.min(60, Math.max(1, Number(values.duration)));
const warmupS = Math.min(30, Math.max(0, Number(values.warmup)));
const connections = Math.min(1024, Math.max(1, Number(values.connections)));
const stores = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store!];
if (!stores.every((s) => s === 'sqlite' || s === 'postgres'))
  throw new Error('--store must be sqlite, postgres or both');
const PAGES = 500;
const log = (line: string) => console.log(line);
const tmpDir = mkdtempSync(join(tmpdir(), 'gw-page-bench-'));
const databases: BenchDatabase[] = [];

async function bare(label: string): Promise<LoadResult> {
  const server = await startServer(['bench/baseline-server.ts'], {}, /listening (http:\/\/127\.0\.0\.1:\d+)/);
  try {
    const makeBody = initiationBodyFactory({ merchantid: 'BASELINE', password: 'pw_baseline' });
    let n = 0;
    const spec = {
      url: server.url,
      path: '/transaction/s2s',
      connections,
      body: () => makeBody(`b-${++n}`),
      serverPid: server.process.pid,
    };
    if (warmupS > 0) await runLoad({ ...spec, durationS: warmupS });
    log(`  ${label}: ${durationS} s`);
    return await runLoad({ ...spec, durationS });
  } finally {
    await server.stop(5000);
  }
}

async function gateway(store: string): Promise<{ rows: Row[]; profile?: string }> {
  let databaseUrl = `sqlite:${join(tmpDir, `${store}.db`)}`;
  if (store === 'postgres') {
    const db = await createBenchDatabase();
    databases.push(db);
    databaseUrl = db.url;
  }
  const env = gatewayEnv(databaseUrl, tmpDir);
  const cli = join(values['gateway-dir']!, 'src/cli/index.ts');
  const creds = await createBenchMerchant(cli, env);
  const profDir = join(tmpDir, `profile-${store}`);
  const flags = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const server = await startServer([...flags, cli, 'serve'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const rows: Row[] = [];
  try {
    // The open payments whose pages are fetched (and whose trackids are queried).
    const makeBody = initiationBodyFactory(creds);
    const pagePaths: string[] = [];
    const trackids: string[] = [];
    for (let i = 0; i < PAGES; i++) {
      const trackid = `p-${i}`;
      const response = await fetch(new URL('/transaction/s2s', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: makeBody(trackid),
      });
      const body = (await response.json()) as { redirectUrl?: string };
      if (response.status !== 200 || !body.redirectUrl)
        throw new Error(`initiation failed: ${response.status} ${JSON.stringify(body)}`);
      const url = new URL(body.redirectUrl);
      pagePaths.push(url.pathname + url.search);
      trackids.push(trackid);
    }
    const scenario = async (
      name: string,
      spec: Parameters<typeof runLoad>[0],
      check: (status: number, body: string) => boolean,
    ): Promise<void> => {
      let failure: string | undefined;
      const run = (s: number) =>
        runLoad({
          ...spec,
          durationS: s,
          onResponse: (status, body) =>
            check(status, body) ? undefined : (failure ??= `${status} ${body.slice(0, 200)}`),
        });
      if (warmupS > 0) await run(warmupS);
      log(`  ${store}: ${name} ${durationS} s`);
      rows.push({ scenario: `${name} [${store}]`, load: await run(durationS) });
      if (failure) log(`  FAIL ${name} [${store}]: ${failure}`);
    };
    if (values.only !== 'status') {
      let i = 0;
      await scenario(
        'gateway hosted page GET',
        {
          url: server.url,
          method: 'GET',
          path: pagePaths[0]!,
          nextPath: () => pagePaths[i++ % PAGES]!,
          connections,
          durationS,
          serverPid: server.process.pid,
        },
        (status, body) => status === 200 && body.includes('<svg'),
      );
    }
    if (values.only !== 'page') {
      const bodies = trackids.map((t) => statusBody(creds, t));
      let i = 0;
      await scenario(
        'gateway status query',
        {
          url: server.url,
          path: '/transaction/status',
          body: () => bodies[i++ % PAGES]!,
          connections,
          durationS,
          serverPid: server.process.pid,
        },
        (status) => status === 200,
      );
    }
  } finally {
    const code = await server.stop();
    if (code !== 0) log(`  gateway exited with ${code}: ${server.stderr()}`);
  }
  if (!values.profile) return { rows };
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  return {
    rows,
    profile: file ? formatProfileSummary(summariseProfile(join(profDir, file), 40)) : 'no .cpuprofile written',
  };
}

async function main(): Promise<void> {
  log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const before = await bare('bare node:http (before)');
  const rows: Row[] = [{ scenario: 'bare node:http (before)', load: before }];
  const profiles: string[] = [];
  for (const store of stores) {
    const result = await gateway(store);
    rows.push(...result.rows);
    if (result.profile) profiles.push(`Profile [${store}]:\n${result.profile}`);
  }
  const after = await bare('bare node:http (after)');
  rows.push({ scenario: 'bare node:http (after)', load: after });
  const mean = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined ? (a + b) / 2 : undefined;
  log('');
  log(
    httpTable(
      rows,
      (before.rps + after.rps) / 2,
      mean(before.serverUsPerRequest, after.serverUsPerRequest),
      mean(before.mainThreadUsPerRequest, after.mainThreadUsPerRequest),
    ),
  );
  for (const p of profiles) log(`\n${p}`);
  log(
    `\nload average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

try {
  await main();
} finally {
  killAllChildren();
  for (const db of databases) await db.drop().catch(() => {});
  rmSync(tmpDir, { recursive: true, force: true });
}
