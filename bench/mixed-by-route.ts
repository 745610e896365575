// Which kind of request is slow under the mixed load: the gateway's own time per route, read from
// its access log (`request completed` lines, LOG_LEVEL=info), beside the load generator's view.
// `npm run bench` reports the mixed scenario as a whole; this splits it into initiation, status
// query and sandbox completion, which is how the PostgreSQL completion-set plan was found
// (docs/performance.md, issue 12 third round).
//
//   node bench/mixed-by-route.ts [--store sqlite|postgres] [--seconds 8] [--connections 64]
//
// One gateway (`src/cli/index.ts serve`, as the bench runs it, but logging each request) on a
// fresh store; 1 s of initiations to warm up, then the mixed load of bench/mixed-load.ts with its
// notifications going to a receiver on 127.0.0.1. Logging every request costs the gateway a few
// per cent, so compare its req/s with other runs of this script, not with `npm run bench`. The
// log comes through a pipe this process reads beside the load generator: past a few hundred
// connections it cannot keep up, the gateway waits on the full pipe and the figures say little.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { killAllChildren, runNode } from './children.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad } from './load.ts';
import { mixedTracker, startReceiver } from './mixed-load.ts';
import { createBenchDatabase } from './postgres-database.ts';
import { initiationBodyFactory, type Credentials } from './request-bodies.ts';

const { values } = parseArgs({ options: { store: { type: 'string', default: 'sqlite' }, seconds: { type: 'string', default: '8' }, connections: { type: 'string', default: '64' } } });
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const seconds = Math.max(1, Math.min(120, Number(values.seconds)));
const connections = Math.max(1, Math.min(4096, Number(values.connections)));

/** Server-side response times (ms) per path, from the gateway's access log. */
const byRoute = new Map<string, number[]>();
let measuring = false;

const tmpDir = mkdtempSync(join(tmpdir(), 'mixed-by-route-'));
const db = store === 'postgres' ? await createBenchDatabase() : { url: `sqlite:${join(tmpDir, 'gateway.db')}`, drop: async () => {} };
try {
  const env = { ...gatewayEnv(db.url, tmpDir), LOG_LEVEL: 'info' };
  const created = await runNode(['src/cli/index.ts', 'merchant', 'create', '--name', 'Bench', '--payout-currency', 'THB', '--payout-account', '1234567890', '--json'], env);
  const creds = JSON.parse(created.trim().split('\n').filter((l) => l.startsWith('{')).at(-1) ?? '{}') as Credentials;
  const receiver = await startReceiver();
  const gateway = spawn(process.execPath, ['src/cli/index.ts', 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    gateway.once('exit', (code) => reject(new Error(`the gateway exited with ${code} before it was ready`)));
    createInterface({ input: gateway.stdout }).on('line', (line) => {
      const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (ready) resolve(ready[1]!);
      if (!measuring || !line.includes('"request completed"')) return;
      const entry = JSON.parse(line) as { req?: { path?: string }; responseTime?: number };
      if (entry.req?.path === undefined || entry.responseTime === undefined) return;
      let times = byRoute.get(entry.req.path);
      if (!times) byRoute.set(entry.req.path, (times = []));
      times.push(entry.responseTime);
    });
  });
  const makeBody = initiationBodyFactory(creds, receiver.url);
  let n = 0;
  await runLoad({ url, path: '/transaction/s2s', connections, durationS: 1, body: () => makeBody(`w-${++n}`) });
  const tracker = mixedTracker(creds, () => ({ trackid: `m-${++n}`, body: makeBody(`m-${n}`) }), () => {});
  measuring = true;
  const load = await runLoad({ url, path: '/transaction/s2s', connections, durationS: seconds, body: tracker.next, onResponse: tracker.onResponse, serverPid: gateway.pid });
  measuring = false;
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  await receiver.close();

  const c = tracker.counts;
  console.log(`mixed load [${store}], ${connections} connections, ${seconds} s: ${Math.round(load.rps)} req/s (sent ${c.init} / ${c.status} / ${c.complete} initiation / status / completion; ${receiver.received()} notifications received)`);
  console.log(`load generator: p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms; gateway ${load.serverCores?.toFixed(2)} cores, HTTP thread ${load.mainThreadUsPerRequest?.toFixed(0)} µs per request`);
  if (tracker.sampleFailure()) console.log(`first failure: ${tracker.sampleFailure()}`);
  console.log('gateway time per route (access log, ms):');
  for (const [path, times] of byRoute) {
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
    console.log(`  ${path.padEnd(32)} n=${String(times.length).padStart(6)}  p50 ${at(0.5).padStart(5)}  p90 ${at(0.9).padStart(5)}  p99 ${at(0.99).padStart(5)}  max ${at(1).padStart(6)}  mean ${mean.toFixed(1)}`);
  }
} finally {
  killAllChildren();
  await db.drop();
  rmSync(tmpDir, { recursive: true, force: true });
}
