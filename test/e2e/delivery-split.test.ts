// API and delivery in separate processes (PostgreSQL): `serve` with DELIVERY_WORKER=false sends
// no notification itself and wakes `deliver` after each payment it finalises (NOTIFY); `deliver`
// runs the delivery worker without the HTTP API. On SQLite both are refused at start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { Receiver } from '../support/delivery.ts';
import { createMerchant, gatewayEnv, payThrough } from '../support/delivery-process.ts';
import {
  eventually,
  killLeftoverGateways,
  runCliProcess,
  startDeliverProcess,
  startGatewayProcess,
} from '../support/gateway-process.ts';

const postgres = (await testDialects()).find((c) => c.dialect === 'postgres');
const skip = postgres
  ? postgres.skip
  : 'TEST_DATABASE excludes PostgreSQL (a separate delivery process ' +
    'needs a shared PostgreSQL; SQLite is one process by design)';

describe('delivery in its own process [postgres]', { skip }, () => {
  let receiver: Receiver;
  let database: { databaseUrl: string; drop(): Promise<void> };

  before(async () => {
    receiver = await Receiver.start();
    database = await createTestDatabase('postgres');
  });
  after(async () => {
    await killLeftoverGateways();
    await receiver?.close();
    await database?.drop();
  });

  test(
    'serve with DELIVERY_WORKER=false sends nothing; ' +
      'deliver sends at once when woken, and what waited when it starts',
    async () => {
      // A poll far longer than the test: only a NOTIFY or the start-up look can explain a prompt delivery.
      const env = gatewayEnv(database.databaseUrl, { DELIVERY_POLL_INTERVAL: '10m' });
      const shop = await createMerchant(env, 'Split Shop');
      const delivered = new Map<string, number>();
      const url = receiver.on('/split', (res) => {
        const tx = JSON.parse(receiver.requests.at(-1)!.body.toString()).transactionid as string;
        delivered.set(tx, (delivered.get(tx) ?? 0) + 1);
        res.writeHead(204).end();
      });

      const api = await startGatewayProcess({ ...env, DELIVERY_WORKER: 'false' });
      assert.match(api.stdout(), /not delivered by this process \(DELIVERY_WORKER=false\): run `deliver` beside it/);

      // No delivery process yet: the payment's notification waits in the outbox.
      const waited = await payThrough(api.url, shop, url, 'split-waited');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(delivered.size, 0, 'the API process delivered nothing');

      // Started, `deliver` looks once: the waiting notification goes out.
      const deliver = await startDeliverProcess({ ...env, METRICS_PORT: '0' });
      await receiver.waitFor(() => delivered.has(waited), 'the notification that waited', 10_000);
      // Its own /metrics counts the attempts it made.
      const metricsUrl = /Metrics on (http:\/\/\S+)/.exec(deliver.stdout())?.[1];
      assert.ok(metricsUrl, deliver.stdout());
      await eventually(
        async () =>
          /gateway_notification_attempts_total\{outcome="delivered",result="2xx"\} 1\b/.test(
            await (await fetch(metricsUrl)).text(),
          ),
        5_000,
        100,
      );

      // A new payment: the API process's NOTIFY wakes `deliver` long before its 10-minute poll.
      const started = Date.now();
      const prompt = await payThrough(api.url, shop, url, 'split-prompt');
      await receiver.waitFor(() => delivered.has(prompt), 'the new payment’s notification', 10_000);
      assert.ok(Date.now() - started < 10_000);

      assert.equal(await deliver.stop(), 0, 'deliver stops cleanly on SIGTERM');
      assert.match(deliver.stderr() + deliver.stdout(), /Delivering notifications \(sandbox\) as /);
      assert.equal(await api.stop(), 0);
      assert.deepEqual([...delivered.values()], [1, 1], 'each notification sent once');
    },
  );
});

describe('delivery in its own process is refused on SQLite', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'split-sqlite-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('deliver exits 2 and says why', async () => {
    const run = await runCliProcess(['deliver'], gatewayEnv(`sqlite:${join(dir, 'a.db')}`));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /`deliver` needs PostgreSQL: a SQLite database is served by one process/);
  });

  test('serve with DELIVERY_WORKER=false exits 2 and says why, before opening anything', async () => {
    const run = await runCliProcess(['serve'], gatewayEnv(`sqlite:${join(dir, 'b.db')}`, { DELIVERY_WORKER: 'false' }));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /DELIVERY_WORKER=false needs PostgreSQL/);
  });
});
