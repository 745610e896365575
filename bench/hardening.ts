// The two load figures of docs/performance.md "Load shedding" (/metrics, overload), each against a
// gateway built from a chosen source tree, so the same script measures "before" (main, checked out
// elsewhere) and "after" (this tree):
//
//   node_modules/.bin/node bench/hardening.ts metrics  [--rows 1000000] [--duration 10] [--scrapers 8] [--root DIR]
//   node_modules/.bin/node bench/hardening.ts overload [--connections 1500] [--duration 10] [--root DIR]
//
// (or `npm run bench -- --hardening metrics|overload …`; `--root` defaults to the current directory.)
//
// metrics:  a SQLite store holding `--rows` transactions (cloned in one SQL statement from a real
//           initiation, a third each PROCESSING / SUCCESS / FAILED). Reports one scrape's latency
//           and gateway CPU, then initiations per second for `--duration` s alone and with
//           `--scrapers` clients scraping /metrics in a loop (10 s timeout each), and the ratio.
// overload: a fresh SQLite store, `--connections` keep-alive clients posting initiations as fast
//           as they can (autocannon, 10 s timeout). Reports answers by status, timeouts, latency
//           p50/p99, a /healthz probe's worst latency (one probe every 100 ms) and the gateway's
//           peak RSS.
// Only 127.0.0.1. The gateway runs as a child process with production settings apart from the
// port, the store and a high per-merchant rate limit.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { createBenchMerchant, killAllChildren, runNode, startServer, type ServerChild } from './children.ts';
import { processCpuSeconds } from './cpu-usage.ts';
import { runLoad, type LoadResult } from './load.ts';
import { initiationBodyFactory, type Credentials } from './request-bodies.ts';

const log = (line: string) => console.log(line);

export type HardeningOptions = {
  scenario: 'metrics' | 'overload';
  root: string;
  rows: number;
  durationS: number;
  scrapers: number;
  connections: number;
};

export function parseHardeningOptions(argv: string[]): HardeningOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      root: { type: 'string', default: '.' },
      rows: { type: 'string', default: '1000000' },
      duration: { type: 'string', default: '10' },
      scrapers: { type: 'string', default: '8' },
      connections: { type: 'string', default: '1500' },
    },
  });
  const scenario = positionals[0];
  if (scenario !== 'metrics' && scenario !== 'overload')
    throw new Error(
      'usage: bench/hardening.ts metrics|overload [--root DIR] ' +
        '[--rows N] [--duration S] [--scrapers N] [--connections N]',
    );
  const bounded = (name: string, raw: string | undefined, min: number, max: number) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return value;
  };
  return {
    scenario,
    root: resolve(values.root ?? '.'),
    rows: bounded('rows', values.rows, 1000, 5_000_000),
    durationS: bounded('duration', values.duration, 1, 120),
    scrapers: bounded('scrapers', values.scrapers, 1, 64),
    connections: bounded('connections', values.connections, 1, 4000),
  };
}

function env(databaseUrl: string, dir: string, key: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: key,
    GATEWAY_SECRET_KEY_FILE: join(dir, 'unused-secret.key'),
    HOST: '127.0.0.1',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    LOG_LEVEL: 'warn',
    GATEWAY_MODE: 'sandbox',
    CREATE_DEMO_MERCHANT: 'false',
    RATE_LIMIT_PER_MERCHANT_PER_SECOND: '1000000',
  };
}

function createMerchant(root: string, gatewayEnv: Record<string, string>): Promise<Credentials> {
  return createBenchMerchant(join(root, 'src/cli/index.ts'), gatewayEnv);
}

const startGateway = (root: string, gatewayEnv: Record<string, string>) =>
  startServer(
    [join(root, 'src/cli/index.ts'), 'serve'],
    gatewayEnv,
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    120_000,
  );

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** Clones one real transaction row `rows` times in one statement (ids, trackid, token, redirect id made unique). */
function seedTransactions(path: string, rows: number): void {
  const db = new DatabaseSync(path);
  try {
    const columns = (db.prepare('pragma table_info(transactions)').all() as Array<{ name: string }>).map((c) => c.name);
    const unique = new Set(['id', 'trackid', 'token', 'redirect_id']);
    const expressions = columns.map((c) => {
      if (unique.has(c)) return `t.${c} || '-' || n.i`;
      if (c === 'status') return `case n.i % 3 when 0 then 'PROCESSING' when 1 then 'SUCCESS' else 'FAILED' end`;
      return `t.${c}`;
    });
    db.exec(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
      insert into transactions (${columns.join(', ')}) select ${expressions.join(', ')}
      from n, (select * from transactions limit 1) t`);
  } finally {
    db.close();
  }
}

async function scrapeOnce(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  await response.text();
  return response.status;
}

function loadLine(label: string, r: LoadResult): string {
  const codes = Object.entries(r.statusCodes)
    .map(([c, n]) => `${c}:${n}`)
    .join(' ');
  const cpu = r.serverUsPerRequest === undefined ? '' : `, gateway ${r.serverUsPerRequest.toFixed(0)} µs CPU/request`;
  return (
    `  ${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, ` +
    `p99 ${r.p99Ms.toFixed(1)} ms (2xx only: ${r.p99Ms2xx.toFixed(1)} ms), ` +
    `timeouts/errors ${r.errors}, statuses ${codes}${cpu}`
  );
}

async function metricsScenario(options: HardeningOptions, dir: string): Promise<void> {
  const path = join(dir, 'gateway.db');
  const gatewayEnv = env(`sqlite:${path}`, dir, randomBytes(32).toString('hex'));
  await runNode([join(options.root, 'src/cli/index.ts'), 'migrate'], gatewayEnv);
  const creds = await createMerchant(options.root, gatewayEnv);
  const makeBody = initiationBodyFactory(creds);
  let gateway: ServerChild = await startGateway(options.root, gatewayEnv);
  const first = await fetch(`${gateway.url}/transaction/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: makeBody('seed'),
  });
  if (first.status !== 200) throw new Error(`seed initiation failed: ${first.status} ${await first.text()}`);
  await gateway.stop();
  const seeded = await timed(async () => seedTransactions(path, options.rows));
  log(`  seeded ${options.rows} transactions in ${(seeded.ms / 1000).toFixed(1)} s`);

  gateway = await startGateway(options.root, gatewayEnv);
  try {
    await scrapeOnce(gateway.url); // warm
    const cpuBefore = processCpuSeconds(gateway.process.pid!) ?? 0;
    const scrapes = 10;
    const { ms } = await timed(async () => {
      for (let i = 0; i < scrapes; i++) await scrapeOnce(gateway.url);
    });
    const cpuMs = (((processCpuSeconds(gateway.process.pid!) ?? 0) - cpuBefore) * 1000) / scrapes;
    log(
      `  one scrape alone: ${(ms / scrapes).toFixed(1)} ms wall, ` +
        `${cpuMs.toFixed(1)} ms gateway CPU (mean of ${scrapes}; /proc CPU has 10 ms resolution)`,
    );

    let n = 0;
    const spec = {
      url: gateway.url,
      path: '/transaction/s2s',
      connections: 32,
      serverPid: gateway.process.pid,
      body: () => makeBody(`m-${++n}`),
    };
    await runLoad({ ...spec, durationS: 2 }); // warm-up
    const alone = await runLoad({ ...spec, durationS: options.durationS });
    log(loadLine('initiations alone', alone));

    let scraping = true;
    const scrapeResults = { ok: 0, failed: 0 };
    const scrapers = Array.from({ length: options.scrapers }, async () => {
      while (scraping) {
        try {
          (await scrapeOnce(gateway.url)) === 200 ? scrapeResults.ok++ : scrapeResults.failed++;
        } catch {
          scrapeResults.failed++;
        }
      }
    });
    const withScrapers = await runLoad({ ...spec, durationS: options.durationS });
    scraping = false;
    await Promise.all(scrapers);
    log(loadLine(`initiations with ${options.scrapers} scrapers`, withScrapers));
    log(`  scrapes meanwhile: ${scrapeResults.ok} answered, ${scrapeResults.failed} failed or timed out (10 s)`);
    log(`  ratio with/without scrapers: ${(withScrapers.rps / alone.rps).toFixed(2)}×`);
  } finally {
    await gateway.stop();
  }
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function overloadScenario(options: HardeningOptions, dir: string): Promise<void> {
  const gatewayEnv = env(`sqlite:${join(dir, 'gateway.db')}`, dir, randomBytes(32).toString('hex'));
  await runNode([join(options.root, 'src/cli/index.ts'), 'migrate'], gatewayEnv);
  const creds = await createMerchant(options.root, gatewayEnv);
  const makeBody = initiationBodyFactory(creds);
  const gateway = await startGateway(options.root, gatewayEnv);
  try {
    const pid = gateway.process.pid!;
    let n = 0;
    const spec = { url: gateway.url, path: '/transaction/s2s', serverPid: pid, body: () => makeBody(`o-${++n}`) };
    await runLoad({ ...spec, connections: 32, durationS: 2 }); // warm-up at a sane load
    let running = true;
    let peakRss = rssMiB(pid);
    const health: number[] = [];
    const prober = (async () => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(15_000) });
          await response.text();
          health.push(performance.now() - started);
        } catch {
          health.push(15_000);
        }
        peakRss = Math.max(peakRss, rssMiB(pid));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const result = await runLoad({ ...spec, connections: options.connections, durationS: options.durationS });
    running = false;
    await prober;
    health.sort((a, b) => a - b);
    log(loadLine(`${options.connections} connections`, result));
    log(
      `  /healthz during the run: ${health.length} probes, ` +
        `p50 ${health[Math.floor(health.length / 2)]?.toFixed(1)} ms, worst ${health.at(-1)?.toFixed(1)} ms`,
    );
    log(`  gateway peak RSS: ${peakRss.toFixed(0)} MiB`);
  } finally {
    await gateway.stop();
  }
}

export async function runHardening(options: HardeningOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-hardening-'));
  try {
    log(`Hardening bench "${options.scenario}" against ${options.root}`);
    log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    if (options.scenario === 'metrics') await metricsScenario(options, dir);
    else await overloadScenario(options, dir);
    log(
      `Load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    killAllChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runHardening(parseHardeningOptions(process.argv.slice(2))).then(
    () => process.exit(0),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      killAllChildren();
      process.exit(1);
    },
  );
}
