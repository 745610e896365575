// Notification backlogs: what a claim costs with a large backlog, with and without
// one saturated (dead) endpoint, and how fast a backlog drains to a healthy local receiver, with
// and without a dead endpoint's backlog beside it. Each figure has a bare baseline from the
// same run: a primary-key read of one outbox row for claims; for drains, two bare HTTP POST
// loops to the same receiver: the worker's whole concurrency on new connections, and one
// origin's per-host cap on keep-alive connections (the most one origin's sends may use). The
// drain also prints the process's CPU per delivery (worker, receiver and SQLite thread share
// the process), steadier than rates on a shared machine.
//
//   node_modules/.bin/node bench/delivery-backlog.ts [--store sqlite|postgres] [--backlog 20000] [--history 100000]
//     [--explain] [--no-drain] [--no-claims]
//
// Rows are generated in SQL (a recursive CTE), not through the API, so a 1M-row history takes
// seconds. The dead endpoint is a closed port on 127.0.0.1 (connection refused at once).
import http from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createLogger } from '../src/logger.ts';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { deliveryWorker } from '../src/delivery/delivery-worker.ts';
import { OutboxClaimsRepo } from '../src/store/repos/outbox-claims.repo.ts';
import { openStoreEngine, type Db } from '../src/store/engine.ts';
import { storeOver } from '../src/store/open-store.ts';
import { insertEvents } from './outbox-rows.ts';
import { benchDatabase, benchGatewayConfig } from './postgres-database.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    backlog: { type: 'string', default: '20000' },
    history: { type: 'string', default: '100000' },
    explain: { type: 'boolean', default: false },
    'no-drain': { type: 'boolean', default: false },
    'no-claims': { type: 'boolean', default: false },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const backlog = Math.max(100, Math.min(1_000_000, Number(values.backlog)));
const history = Math.max(0, Math.min(2_000_000, Number(values.history)));
const CONCURRENCY = 16;
const PER_HOST = 4;

// --- receiver and a closed port ------------------------------------------------------------
let received = 0;
let onReceived: () => void = () => {};
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
    onReceived();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const healthy = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const closed = http.createServer();
await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
await new Promise<void>((resolve) => closed.close(() => resolve()));

function usPerOp(fn: () => Promise<unknown>, iterations: number): Promise<number> {
  return (async () => {
    for (let i = 0; i < Math.min(20, iterations); i++) await fn(); // warm-up
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn();
    return Number(process.hrtime.bigint() - started) / 1000 / iterations;
  })();
}

/** A bare POST loop to the healthy receiver: `inFlight` at a time, new connections or keep-alive ones. */
async function barePostRate(count: number, inFlight: number, keepAlive: boolean): Promise<number> {
  const agent = new http.Agent({ keepAlive });
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        await new Promise<void>((resolve, reject) => {
          const req = http.request(
            `${healthy}/bare`,
            { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
            (res) => {
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          req.end('{"type":"valid"}');
        });
      }
    }),
  );
  agent.destroy();
  return (count / (Date.now() - started)) * 1000;
}

async function withGateway<T>(
  work: (gateway: RunningGateway, db: Db, merchantId: string) => Promise<T>,
  withWorker: boolean,
): Promise<T> {
  const db = await benchDatabase(store);
  const config = benchGatewayConfig(db.url, {
    LOG_LEVEL: 'silent',
    DELIVERY_CONCURRENCY: String(CONCURRENCY),
    DELIVERY_PER_HOST_CONCURRENCY: String(PER_HOST),
    RETRY_LADDER: '0,1h',
  });
  // The bench reads rows directly beside the gateway: it keeps the engine and hands the gateway its ports.
  const engine = openStoreEngine(config.databaseUrl);
  await engine.migrate();
  const gateway = await startGateway(config, { logger: createLogger('silent'), workers: [], store: storeOver(engine) });
  try {
    const merchant = await gateway.services.manageMerchants.create({
      name: 'Bench Shop',
      payoutCurrency: 'THB',
      payoutAccount: '1234567890',
    });
    const result = await (async () => {
      if (!withWorker) return work(gateway, engine.db, merchant.merchantid);
      return work(gateway, engine.db, merchant.merchantid);
    })();
    return result;
  } finally {
    await gateway.stop();
    await engine.close();
    await db.drop();
  }
}

const log = (line: string) => console.log(line);
log(
  `Delivery backlog benchmark (${store}): backlog ${backlog}, delivered history ${history}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

// 1. Claim cost with a backlog, against a primary-key read in the same store.
if (!values['no-claims'])
  await withGateway(async (gateway, db, merchantId) => {
    const now = Date.now();
    await insertEvents(db, merchantId, 'h', history, healthy, 'delivered', now - 86_400_000);
    // The dead endpoint's backlog is older than the healthy one's: a claim reading the global due
    // order would meet all of it first.
    await insertEvents(db, merchantId, 'd', backlog, dead, 'pending', now - 3_600_000);
    await insertEvents(db, merchantId, 'a', backlog, healthy, 'pending', now - 1_800_000);
    if (store === 'postgres') await sql`analyze outbox_events`.execute(db);
    const claims = new OutboxClaimsRepo(db, gateway.services.store.kind);
    let k = 0;
    const pk = await usPerOp(
      () =>
        db
          .selectFrom('outbox_events')
          .selectAll()
          .where('id', '=', `evt_a${(k++ % backlog) + 1}`)
          .executeTakeFirst(),
      2000,
    );
    const claimAll = await usPerOp(async () => {
      const c = await claims.claim({
        owner: 'bench',
        now,
        leaseMs: 60_000,
        limit: CONCURRENCY,
        allowance: () => PER_HOST,
      });
      await claims.release(
        c.events.map((e) => e.id),
        'bench',
      );
    }, 300);
    const claimDeadSaturated = await usPerOp(async () => {
      const c = await claims.claim({
        owner: 'bench',
        now,
        leaseMs: 60_000,
        limit: CONCURRENCY,
        allowance: (o) => (o === dead ? 0 : PER_HOST),
      });
      await claims.release(
        c.events.map((e) => e.id),
        'bench',
      );
    }, 300);
    // The read half of a claim alone (no lease write, so no commit): the part that could grow with the backlog.
    const origins = await usPerOp(() => claims.dueOrigins(now, ''), 1000);
    const commit = await usPerOp(
      () => sql`update outbox_events set lease_owner = null where id = ${'evt_a1'}`.execute(db),
      300,
    );
    const next = await usPerOp(() => claims.nextDueAt(), 1000);
    log(
      `Claims with ${2 * backlog} due events on 2 origins and ${history} ` +
        `delivered rows (µs per call, × primary-key read):`,
    );
    log(`  primary-key read of one outbox row (baseline) ${pk.toFixed(0)} µs`);
    log(
      `  claim 16 (lease + release), both origins open   ${claimAll.toFixed(0)} µs  (${(claimAll / pk).toFixed(1)}×)`,
    );
    log(
      `  claim 16, dead origin saturated (skipped)       ` +
        `${claimDeadSaturated.toFixed(0)} µs  (${(claimDeadSaturated / pk).toFixed(1)}×)`,
    );
    log(`  due origins (the claim's read half)             ${origins.toFixed(0)} µs  (${(origins / pk).toFixed(1)}×)`);
    log(`  next due time                                   ${next.toFixed(0)} µs  (${(next / pk).toFixed(1)}×)`);
    log(`  one-row UPDATE commit (a claim makes two)       ${commit.toFixed(0)} µs  (${(commit / pk).toFixed(1)}×)`);
    if (values.explain) {
      const explain = store === 'postgres' ? sql`explain (analyze, buffers, costs off)` : sql`explain query plan`;
      const ix = store === 'sqlite' ? sql.raw('indexed by outbox_pending_origin') : sql``;
      const origins = await sql<Record<string, unknown>>`${explain} with recursive o(origin, n) as (
        select (select origin from outbox_events ${ix} where status = 'pending' and origin > ''
          order by origin limit 1), 1
        union all
        select (select e.origin from outbox_events e ${ix} where e.status = 'pending' and e.origin > o.origin
          order by e.origin limit 1), o.n + 1 from o where o.origin is not null and o.n < 256)
      select origin from o where origin is not null
        and exists (select 1 from outbox_events e where e.origin = o.origin and e.status = 'pending'
          and e.next_attempt_at <= ${now} and (e.lease_expires_at is null or e.lease_expires_at <= ${now}))`.execute(
        db,
      );
      log('  EXPLAIN due origins:');
      for (const row of origins.rows) log(`    ${Object.values(row).join(' ')}`);
      const pick = await sql<
        Record<string, unknown>
      >`${explain} select e.id from outbox_events e ${ix} where e.origin = ${healthy} and e.status = 'pending'
        and e.next_attempt_at <= ${now} and (e.lease_expires_at is null or e.lease_expires_at <= ${now})
        order by e.origin, e.next_attempt_at, e.id limit 4`.execute(db);
      log("  EXPLAIN take one origin's oldest due events:");
      for (const row of pick.rows) log(`    ${Object.values(row).join(' ')}`);
    }
  }, false);

// 2. Drains to the healthy receiver, alone and beside a dead endpoint's backlog.
if (values['no-drain']) {
  receiver.close();
  process.exit(0);
}
// Two bare loops: the worker's whole concurrency on new connections (the baseline of earlier
// runs), and what one origin's sends may use (its per-host cap) on keep-alive connections.
const bare = await barePostRate(Math.min(backlog, 5000), CONCURRENCY, false);
const bareOrigin = await barePostRate(Math.min(backlog, 5000), PER_HOST, true);
log(
  `Drain to a local receiver answering 204 (${CONCURRENCY} in flight, ${PER_HOST} per origin; ` +
    `bare POST loop, ${CONCURRENCY} in flight on new connections: ${bare.toFixed(0)}/s; ` +
    `${PER_HOST} in flight on keep-alive connections: ${bareOrigin.toFixed(0)}/s):`,
);
for (const withDead of [false, true]) {
  await withGateway(async (gateway, db, merchantId) => {
    const now = Date.now();
    // Event i is due at start + i ms, so the whole backlog must be due before the worker starts:
    // until 2026-11 it started at now - 1 s, so only the first 1,000 were due and the rest became
    // due at 1,000/s, which capped every drain figure at about 1,250/s whatever the worker did.
    if (withDead) await insertEvents(db, merchantId, 'd', backlog, dead, 'pending', now - 1000 - backlog);
    await insertEvents(db, merchantId, 'a', backlog, healthy, 'pending', now - 1000 - backlog);
    received = 0;
    const done = new Promise<void>((resolve) => (onReceived = () => received >= backlog && resolve()));
    const worker = deliveryWorker(gateway.services, createLogger('silent'));
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    worker.start();
    const timeout = setTimeout(() => (onReceived = () => {}), 600_000);
    let cap: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (cap = setTimeout(resolve, 600_000)))]);
    clearTimeout(cap); // left running, it kept the process alive for 10 minutes after the last drain
    clearTimeout(timeout);
    const seconds = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    await worker.stop();
    const rate = received / seconds;
    log(
      `  ${backlog} healthy events${withDead ? ` beside ${backlog} for a dead endpoint` : ''}: ` +
        `${received} delivered in ${seconds.toFixed(1)} s = ${rate.toFixed(0)}/s ` +
        `(${(rate / bare).toFixed(2)}× bare, ${(rate / bareOrigin).toFixed(2)}× bare ${PER_HOST} ` +
        `keep-alive); process CPU ${((cpu.user + cpu.system) / received).toFixed(0)} µs per ` +
        `delivery (worker, receiver and SQLite thread)`,
    );
  }, true);
}
receiver.close();
