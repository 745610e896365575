// Several gateway processes on one PostgreSQL database share the outbox: every event is
// delivered, one instance dying mid-way loses nothing, and no event is ever in flight on two
// instances at once (the receiver watches for overlapping requests with the same webhook-id).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { Receiver, type Behaviour } from '../support/delivery.ts';
import { createMerchant, gatewayEnv, payThrough } from '../support/delivery-process.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

const PAYMENTS = 300;
const KILL_AFTER = 150;
const PARALLEL = 6;

const postgres = (await testDialects()).find((c) => c.dialect === 'postgres');
const skip = postgres
  ? postgres.skip
  : 'TEST_DATABASE excludes PostgreSQL (several instances need a shared PostgreSQL; SQLite is one process by design)';

describe('three gateway instances on one PostgreSQL database [postgres]', { skip }, () => {
  let receiver: Receiver;
  let database: { databaseUrl: string; drop(): Promise<void> };
  const instances: GatewayProcess[] = [];

  before(async () => {
    receiver = await Receiver.start();
    database = await createTestDatabase('postgres');
  });
  after(async () => {
    for (const g of instances) g.child.kill('SIGKILL');
    await Promise.all(instances.map((g) => g.exited));
    await receiver?.close();
    await database?.drop();
  });

  test(`${PAYMENTS} payments, one instance killed half-way: all delivered, never in flight twice`, async () => {
    const env = gatewayEnv(database.databaseUrl, {
      RETRY_LADDER: '0,200ms,500ms,1s,1s,1s,1s,1s,1s,1s',
      DELIVERY_TIMEOUT: '2s',
      DELIVERY_LEASE: '3s',
      DELIVERY_POLL_INTERVAL: '200ms',
    });
    const shops = [await createMerchant(env, 'Shop One'), await createMerchant(env, 'Shop Two')];

    const inFlight = new Map<string, number>();
    const overlaps: string[] = [];
    const deliveredTx = new Set<string>();
    let requests = 0;
    const behaviour: Behaviour = (res, req) => {
      requests += 1;
      const id = String(req.headers['webhook-id']);
      const tx = JSON.parse(receiver.requests.at(-1)!.body.toString()).transactionid as string;
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      if (now > 1) overlaps.push(id);
      res.on('close', () => inFlight.set(id, (inFlight.get(id) ?? 1) - 1));
      res.on('finish', () => deliveredTx.add(tx));
      // A short think time widens the window in which a second instance could wrongly send too.
      setTimeout(() => res.writeHead(200).end('ok'), Math.floor(Math.random() * 25));
    };
    const serverUrl = receiver.on('/hook', behaviour);

    for (let i = 0; i < 3; i++) instances.push(await startGatewayProcess(env));
    const alive = new Set([0, 1, 2]);

    const transactions: string[] = [];
    const outstanding = [0, 0, 0];
    let next = 0;
    let killed = false;
    async function client(): Promise<void> {
      while (next < PAYMENTS) {
        const i = next++;
        if (i >= KILL_AFTER && !killed) {
          // New payments go to the survivors; the victim dies with its deliveries in flight
          // and pending, but not in the middle of answering one of our API calls.
          killed = true;
          alive.delete(1);
          void (async () => {
            while (outstanding[1]! > 0) await new Promise((resolve) => setTimeout(resolve, 1));
            instances[1]!.child.kill('SIGKILL');
          })();
        }
        const target = [...alive][i % alive.size]!;
        outstanding[target]! += 1;
        try {
          transactions.push(await payThrough(instances[target]!.url, shops[i % 2]!, serverUrl, `multi-${i}`));
        } finally {
          outstanding[target]! -= 1;
        }
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, client));
    assert.equal((await instances[1]!.exited).signal, 'SIGKILL');
    assert.equal(transactions.length, PAYMENTS);

    await receiver.waitFor(() => transactions.every((t) => deliveredTx.has(t)), 'every event delivered', 40_000);
    assert.deepEqual(overlaps, [], 'no webhook-id was ever in flight twice at the same time');

    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    try {
      // The survivors record their last attempts right after the answers.
      let pending = PAYMENTS;
      for (let i = 0; i < 50 && pending > 0; i++) {
        const { rows } = await db.query<{ n: string }>(
          `select count(*) as n from outbox_events where status <> 'delivered'`,
        );
        pending = Number(rows[0]!.n);
        if (pending > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(pending, 0);
      const { rows: total } = await db.query<{ n: string }>('select count(*) as n from outbox_events');
      assert.equal(Number(total[0]!.n), PAYMENTS);
      const { rows: workers } = await db.query<{ instance_id: string; n: string }>(
        'select instance_id, count(*) as n from delivery_attempts group by instance_id',
      );
      assert.ok(workers.length >= 2, `attempts came from ${workers.length} instance(s): the work was shared`);
      const victim = `/${instances[1]!.child.pid}/`;
      assert.ok(
        workers.some((w) => w.instance_id.includes(victim)),
        'the killed instance was delivering before it died',
      );
    } finally {
      await db.end();
    }
    assert.ok(requests >= PAYMENTS);

    for (const i of alive) instances[i]!.child.kill('SIGTERM');
    for (const i of alive) assert.deepEqual(await instances[i]!.exited, { code: 0, signal: null });
  });
});
