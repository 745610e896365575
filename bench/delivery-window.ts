// One merchant's notifications against its payments: a backlog for a single endpoint whose answers
// take ~250 ms (a WooCommerce shop's usual), drained with a fixed per-origin cap
// (DELIVERY_PER_HOST_MAX_CONCURRENCY = DELIVERY_PER_HOST_CONCURRENCY = 4, the behaviour before the
// window) and with the growing window (the defaults: 4 up to 32); then the same for an endpoint
// answering 503 after 250 ms, which must stay paced at the floor either way
// (docs/notifications.md "How it works"). The baseline, from the same run, is a bare keep-alive
// POST loop with the window's maximum in flight to the same 250 ms receiver: the most one
// origin's sends could reach. Target: ≥ 100 notifications/s sustained for the healthy endpoint
// (the rate over the second half of the answers, once the window has grown; the overall rate,
// which includes the few seconds of growth, is printed beside it).
//
//   node_modules/.bin/node bench/delivery-window.ts [--store sqlite|postgres] [--backlog 3000] [--latency 250]
//     [--window-only] [--json]
// --window-only drains only the healthy endpoint with the window (the target's row; `npm run bench`'s
// targets table runs it so); --json ends the output with one JSON line of the figures.
import http from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.ts';
import { startGateway } from '../src/server.ts';
import { deliveryWorker } from '../src/delivery/delivery-worker.ts';
import { openStoreEngine } from '../src/store/engine.ts';
import { storeOver } from '../src/store/open-store.ts';
import { insertEvents } from './outbox-rows.ts';
import { benchDatabase, benchGatewayConfig } from './postgres-database.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    backlog: { type: 'string', default: '3000' },
    latency: { type: 'string', default: '250' },
    'window-only': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const backlog = Math.max(100, Math.min(100_000, Number(values.backlog)));
const latencyMs = Math.max(1, Math.min(5000, Number(values.latency)));
const FLOOR = 4;
const MAX = 32;
const TARGET_PER_S = 100;

/** A receiver answering `status` after `latencyMs`; counts answers and the most requests open at once. */
async function slowReceiver(status: number) {
  const state = { answered: 0, open: 0, peak: 0, onAnswer: () => {}, times: [] as number[] };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.open++;
      state.peak = Math.max(state.peak, state.open);
      setTimeout(() => {
        state.open--;
        state.answered++;
        state.times.push(Date.now());
        res.writeHead(status).end();
        state.onAnswer();
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Bare keep-alive POSTs to `url`, `inFlight` at a time: notifications per second. */
async function bareRate(url: string, count: number, inFlight: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) {
        await new Promise<void>((resolve, reject) => {
          const req = http.request(`${url}/bare`, { method: 'POST', agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end('{"type":"valid"}');
        });
      }
    }),
  );
  agent.destroy();
  return (count / (Date.now() - started)) * 1000;
}

/** Drains a backlog of `count` events to a receiver answering `status`, for at most `capS` seconds. */
async function drain(status: number, maxInFlight: number, count: number, capS: number) {
  const receiver = await slowReceiver(status);
  const db = await benchDatabase(store);
  const config = benchGatewayConfig(db.url, {
    LOG_LEVEL: 'silent',
    DELIVERY_CONCURRENCY: '64',
    DELIVERY_PER_HOST_CONCURRENCY: String(FLOOR),
    DELIVERY_PER_HOST_MAX_CONCURRENCY: String(maxInFlight),
    RETRY_LADDER: '0,1h',
  });
  const engine = openStoreEngine(config.databaseUrl);
  await engine.migrate();
  const gateway = await startGateway(config, { logger: createLogger('silent'), workers: [], store: storeOver(engine) });
  try {
    const merchant = await gateway.services.manageMerchants.create({
      name: 'Bench Shop',
      payoutCurrency: 'THB',
      payoutAccount: '1234567890',
    });
    const now = Date.now();
    await insertEvents(engine.db, merchant.merchantid, 'w', count, receiver.url, 'pending', now - 1000 - count);
    const done = new Promise<void>((resolve) => {
      receiver.state.onAnswer = () => receiver.state.answered >= count && resolve();
    });
    const worker = deliveryWorker(gateway.services, createLogger('silent'));
    const started = Date.now();
    worker.start();
    let cap: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (cap = setTimeout(resolve, capS * 1000)))]);
    clearTimeout(cap);
    const seconds = (Date.now() - started) / 1000;
    const answered = receiver.state.answered;
    await worker.stop();
    // Sustained: the second half of the answers, once the window has grown (or not).
    const { times } = receiver.state;
    const half = Math.floor(times.length / 2);
    const sustained = times.length > 10 ? ((times.length - 1 - half) / (times.at(-1)! - times[half]!)) * 1000 : 0;
    return { answered, seconds, rate: answered / seconds, sustained, peak: receiver.state.peak };
  } finally {
    await gateway.stop();
    await engine.close();
    await db.drop();
    await receiver.close();
  }
}

const log = (line: string) => console.log(line);
log(
  `Delivery window benchmark (${store}): ${backlog} notifications for one endpoint answering after ${latencyMs} ms; ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const bareReceiver = await slowReceiver(204);
const bare = await bareRate(bareReceiver.url, Math.min(backlog, MAX * 20), MAX);
await bareReceiver.close();
log(`  bare keep-alive POST loop, ${MAX} in flight (baseline): ${bare.toFixed(0)}/s`);
const runs: Array<{ label: string; status: number; max: number } & Awaited<ReturnType<typeof drain>>> = [];
const cases = [
  ['healthy (204), fixed cap of 4   ', 204, FLOOR],
  ['healthy (204), window 4 to 32   ', 204, MAX],
  ['failing (503), fixed cap of 4   ', 503, FLOOR],
  ['failing (503), window 4 to 32   ', 503, MAX],
] as const;
for (const [label, status, max] of cases.filter(
  ([, status, max]) => !values['window-only'] || (status === 204 && max === MAX),
)) {
  // A failing endpoint is only watched for a few seconds: its pace is what counts, not its drain.
  const r = await drain(status, max, status === 204 ? backlog : Math.min(backlog, 400), status === 204 ? 300 : 10);
  const verdict =
    status === 204 && max === MAX
      ? `; target ≥ ${TARGET_PER_S}/s sustained: ${r.sustained >= TARGET_PER_S ? 'met' : 'NOT met'}`
      : '';
  log(
    `  ${label} ${r.answered} answered in ${r.seconds.toFixed(1)} s = ${r.rate.toFixed(0)}/s overall, ` +
      `${r.sustained.toFixed(0)}/s sustained (second half; ${(r.sustained / bare).toFixed(2)}× bare), ` +
      `at most ${r.peak} in flight${verdict}`,
  );
  runs.push({ label: label.trim(), status, max, ...r });
}
if (values.json) {
  const window = runs.find((r) => r.status === 204 && r.max === MAX);
  console.log(
    JSON.stringify({
      store,
      backlog,
      latency_ms: latencyMs,
      bare_per_s: Math.round(bare),
      target_per_s: TARGET_PER_S,
      window_sustained_per_s: window && Math.round(window.sustained),
      runs: runs.map((r) => ({
        label: r.label,
        status: r.status,
        max_in_flight: r.max,
        answered: r.answered,
        seconds: Math.round(r.seconds * 10) / 10,
        overall_per_s: Math.round(r.rate),
        sustained_per_s: Math.round(r.sustained),
        peak_in_flight: r.peak,
      })),
    }),
  );
}
