// Which kind of request is slow under the mixed load: the gateway's own time per route, read from
// its access log (`request completed` lines, LOG_LEVEL=info), beside the load generator's view.
// `npm run bench` reports the mixed scenario as a whole; this splits it into initiation, status
// query and sandbox completion, which is how the PostgreSQL completion-set plan was found
// (docs/performance.md, "Completions").
//
//   node bench/mixed-by-route.ts [--store sqlite|postgres] [--seconds 8] [--connections 64] [--delivery-process]
//
// `--delivery-process` (PostgreSQL): the gateway runs with DELIVERY_WORKER=false and a `deliver`
// process beside it sends the notifications; its CPU is reported apart.
//
// One gateway (`src/cli/index.ts serve`, as the bench runs it, but logging each request) on a
// fresh store; 1 s of initiations to warm up, then the mixed load of bench/mixed-load.ts with its
// notifications going to a receiver on 127.0.0.1. Logging every request costs the gateway a few
// per cent, so compare its req/s with other runs of this script, not with `npm run bench`.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchMerchant, killAllChildren, startServer } from './children.ts';
import { processCpuSeconds } from './cpu-usage.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad } from './load.ts';
import { mixedTracker, startReceiver } from './mixed-load.ts';
import { createBenchDatabase } from './postgres-database.ts';
import { initiationBodyFactory } from './request-bodies.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '64' },
    'delivery-process': { type: 'boolean', default: false },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const separateDelivery = values['delivery-process'] === true;
if (separateDelivery && store !== 'postgres')
  throw new Error('--delivery-process needs --store postgres (a SQLite file is served by one process)');
const seconds = Math.max(1, Math.min(120, Number(values.seconds)));
const connections = Math.max(1, Math.min(4096, Number(values.connections)));

const tmpDir = mkdtempSync(join(tmpdir(), 'mixed-by-route-'));
const db =
  store === 'postgres'
    ? await createBenchDatabase()
    : { url: `sqlite:${join(tmpDir, 'gateway.db')}`, drop: async () => {} };
try {
  const env = {
    ...gatewayEnv(db.url, tmpDir),
    LOG_LEVEL: 'info',
    ...(separateDelivery && { DELIVERY_WORKER: 'false' }),
  };
  const creds = await createBenchMerchant('src/cli/index.ts', env);
  const receiver = await startReceiver();
  // The log goes straight to a file: read through a pipe by this busy process, it would hold the
  // gateway up whenever the pipe is full.
  const logPath = join(tmpDir, 'gateway.log');
  const logFd = openSync(logPath, 'w');
  const gateway = spawn(process.execPath, ['src/cli/index.ts', 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', logFd, 'inherit'],
  });
  closeSync(logFd);
  let exited = false;
  gateway.once('exit', () => (exited = true));
  let url: string | undefined;
  for (let waited = 0; !url; waited += 50) {
    if (exited || waited > 30_000)
      throw new Error(`the gateway did not report ready:\n${readFileSync(logPath, 'utf8').slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(logPath, 'utf8'))?.[1];
  }
  const deliver = separateDelivery
    ? await startServer(
        ['src/cli/index.ts', 'deliver'],
        { ...env, LOG_LEVEL: 'warn' },
        /Delivering notifications \(\w+\) as (\S+)/,
      )
    : undefined;
  const makeBody = initiationBodyFactory(creds, receiver.url);
  let n = 0;
  await runLoad({ url, path: '/transaction/s2s', connections, durationS: 1, body: () => makeBody(`w-${++n}`) });
  const tracker = mixedTracker(
    creds,
    () => ({ trackid: `m-${++n}`, body: makeBody(`m-${n}`) }),
    () => {},
  );
  const from = statSync(logPath).size;
  const deliverCpu = deliver && processCpuSeconds(deliver.process.pid!);
  const started = performance.now();
  const load = await runLoad({
    url,
    path: '/transaction/s2s',
    connections,
    durationS: seconds,
    body: tracker.next,
    onResponse: tracker.onResponse,
    serverPid: gateway.pid,
  });
  const deliverCores =
    deliver && deliverCpu !== undefined
      ? ((processCpuSeconds(deliver.process.pid!) ?? deliverCpu) - deliverCpu) / ((performance.now() - started) / 1000)
      : undefined;
  await deliver?.stop();
  gateway.kill('SIGTERM');
  if (!exited) await new Promise((resolve) => gateway.once('exit', resolve));
  await receiver.close();

  /** Server-side response times (ms) per path, from the access log lines written during the mixed run. */
  const byRoute = new Map<string, number[]>();
  // `from` is a byte offset, possibly inside a line the gateway was writing: such a line starts without '{'.
  for (const line of readFileSync(logPath).subarray(from).toString('utf8').split('\n')) {
    if (!line.startsWith('{') || !line.includes('"request completed"')) continue;
    const entry = JSON.parse(line) as { req?: { path?: string }; responseTime?: number };
    if (entry.req?.path === undefined || entry.responseTime === undefined) continue;
    let times = byRoute.get(entry.req.path);
    if (!times) byRoute.set(entry.req.path, (times = []));
    times.push(entry.responseTime);
  }

  const c = tracker.counts;
  console.log(
    `mixed load [${store}], ${connections} connections, ${seconds} s: ` +
      `${Math.round(load.rps)} req/s (sent ${c.init} / ${c.status} / ${c.complete} ` +
      `initiation / status / completion; ${receiver.received()} notifications received)`,
  );
  console.log(
    `load generator: p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms; gateway ${load.serverCores?.toFixed(2)} cores, ` +
      `HTTP thread ${load.mainThreadUsPerRequest?.toFixed(0)} µs per request`,
  );
  if (deliverCores !== undefined)
    console.log(
      `delivery process (\`deliver\`, the gateway with DELIVERY_WORKER=false): ${deliverCores.toFixed(2)} cores`,
    );
  if (tracker.sampleFailure()) console.log(`first failure: ${tracker.sampleFailure()}`);
  console.log('gateway time per route (access log, ms):');
  for (const [path, times] of byRoute) {
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
    console.log(
      `  ${path.padEnd(32)} n=${String(times.length).padStart(6)}  p50 ${at(0.5).padStart(5)}  p90 ` +
        `${at(0.9).padStart(5)}  p99 ${at(0.99).padStart(5)}  max ${at(1).padStart(6)}  mean ${mean.toFixed(1)}`,
    );
  }
} finally {
  killAllChildren();
  await db.drop();
  rmSync(tmpDir, { recursive: true, force: true });
}
