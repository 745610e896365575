// The expiry sweeper on both stores: only PROCESSING transactions past their TTL are
// finalised (through the complete use case), concurrent sweepers — in one process and in
// two "instances" with their own store connections — end each transaction exactly once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ExpirySweeper, expirySweeperWorker } from '../../src/app/expiry-sweeper.ts';
import { createServices, type Services } from '../../src/compose/services.ts';
import type { Store } from '../../src/app/ports/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { workersFor } from '../../src/workers.ts';
import { createLogger } from '../../src/logger.ts';
import { GatewayError } from '../../src/domain/errors.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { snapshot, startPayment } from '../support/lifecycle.ts';

function sweeperFor(services: Services, now: () => number, batchSize = 100): ExpirySweeper {
  return new ExpirySweeper({
    transactions: services.transactions,
    expire: (id) => services.processor.end.expire(id),
    now,
    intervalMs: 60_000,
    batchSize,
  });
}

test('the sweeper runs in every `serve`, whether it delivers notifications or not', () => {
  assert.ok(workersFor({ deliveryWorker: true }).includes(expirySweeperWorker));
  assert.ok(workersFor({ deliveryWorker: false }).includes(expirySweeperWorker));
});

test('one failing transaction does not stop the sweep, and is counted', async () => {
  const ids = ['a', 'b', 'c'];
  const done: string[] = [];
  const sweeper = new ExpirySweeper({
    transactions: { findExpired: async (_now, limit) => ids.filter((id) => !done.includes(id)).slice(0, limit) },
    expire: async (id) => {
      if (id === 'b') throw new Error('disk on fire');
      if (id === 'c') throw new GatewayError('INVALID_STATE', 'already final');
      done.push(id);
      return 'closed';
    },
    now: () => 0,
    intervalMs: 1000,
    batchSize: 2,
  });
  assert.deepEqual(await sweeper.sweepOnce(), { expired: 1, alreadyFinal: 1, failed: 1 });
});

for (const { dialect, skip } of await testDialects()) {
  describe(`expiry sweeper [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    test('finalises only PROCESSING transactions past their TTL, with cause expire and the clock time', async () => {
      const ttl = gw.config.transactionTtlMs;
      const old = await startPayment(gw, creds, { bill_amount: '100' });
      const oldFinal = await startPayment(gw, creds, { bill_amount: '100' });
      await gw.services.complete.execute(oldFinal.transactionid, 'confirm');
      gw.clock.now += 60_000;
      const young = await startPayment(gw, creds, { bill_amount: '100' });
      gw.clock.now += ttl - 60_000; // `old` is exactly at its deadline, `young` one minute short of it
      const finalBefore = await snapshot(gw, oldFinal.transactionid);

      const result = await sweeperFor(gw.services, () => gw.clock.now).sweepOnce();
      assert.equal(result.expired, 1);
      assert.equal(result.failed, 0);

      const expired = await snapshot(gw, old.transactionid);
      assert.equal(expired.status, 'FAILED');
      assert.equal(expired.errorCodeTag, 'EXPIRED');
      assert.deepEqual(
        expired.transitions.map((t) => [t.cause, t.at]),
        [['expire', gw.clock.now]],
      );
      assert.equal(expired.outbox.length, 1);
      assert.equal(JSON.parse(expired.outbox[0]!.payload).error_code_tag, 'EXPIRED');
      assert.equal((await snapshot(gw, young.transactionid)).status, 'PROCESSING');
      assert.deepEqual(await snapshot(gw, oldFinal.transactionid), finalBefore, 'a final transaction is left alone');

      gw.clock.now += 60_000;
      assert.equal((await sweeperFor(gw.services, () => gw.clock.now).sweepOnce()).expired, 1);
      assert.equal((await snapshot(gw, young.transactionid)).errorCodeTag, 'EXPIRED');
      assert.deepEqual(await sweeperFor(gw.services, () => gw.clock.now).sweepOnce(), {
        expired: 0,
        alreadyFinal: 0,
        failed: 0,
      });
    });

    test('works through more rows than one batch', async () => {
      const started = await Promise.all(
        Array.from({ length: 7 }, () => startPayment(gw, creds, { bill_amount: '100' })),
      );
      gw.clock.now += gw.config.transactionTtlMs;
      const result = await sweeperFor(gw.services, () => gw.clock.now, 3).sweepOnce();
      assert.equal(result.expired, 7);
      for (const p of started) assert.equal((await snapshot(gw, p.transactionid)).status, 'FAILED');
    });

    // PostgreSQL: a second instance with its own pool, as in a multi-instance deployment.
    // SQLite runs one gateway process per database file (node:sqlite is synchronous, so two
    // connections in one process would wait on each other's lock while blocking the loop);
    // there the concurrent sweepers share the instance's store.
    test(
      'concurrent sweepers (on PostgreSQL in two instances ' +
        'with their own pools) end each transaction exactly once',
      async () => {
        const second: Store | undefined = dialect === 'postgres' ? openStore(gw.testStore.databaseUrl) : undefined;
        try {
          const otherInstance = second
            ? createServices(gw.config, second, gw.config.secretKey!, { now: () => gw.clock.now })
            : gw.services;
          const started = await Promise.all(
            Array.from({ length: 12 }, () => startPayment(gw, creds, { bill_amount: '100' })),
          );
          gw.clock.now += gw.config.transactionTtlMs;
          const sweepers = [
            sweeperFor(gw.services, () => gw.clock.now, 4),
            sweeperFor(otherInstance, () => gw.clock.now, 4),
            sweeperFor(gw.services, () => gw.clock.now, 5),
            sweeperFor(otherInstance, () => gw.clock.now, 5),
          ];
          const results = await Promise.all(sweepers.map((s) => s.sweepOnce()));
          assert.equal(
            results.reduce((n, r) => n + r.failed, 0),
            0,
            JSON.stringify(results),
          );
          assert.equal(
            results.reduce((n, r) => n + r.expired, 0),
            started.length,
            `each transaction expired once: ${JSON.stringify(results)}`,
          );
          for (const p of started) {
            const s = await snapshot(gw, p.transactionid);
            assert.equal(s.errorCodeTag, 'EXPIRED');
            assert.equal(s.transitions.length, 1);
            assert.equal(s.outbox.length, 1);
          }
        } finally {
          await second?.close();
        }
      },
    );

    test('a customer confirm racing the sweeper: one ending wins, the sweeper skips it', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      gw.clock.now += gw.config.transactionTtlMs;
      const [swept, confirmed] = await Promise.allSettled([
        sweeperFor(gw.services, () => gw.clock.now).sweepOnce(),
        gw.services.complete.execute(p.transactionid, 'confirm'),
      ]);
      assert.equal(swept.status, 'fulfilled');
      const s = await snapshot(gw, p.transactionid);
      assert.equal(s.transitions.length, 1);
      assert.equal(s.errorCodeTag, 'EXPIRED', 'past the TTL either path ends as EXPIRED');
      if (confirmed.status === 'rejected') assert.equal((confirmed.reason as GatewayError).tag, 'INVALID_STATE');
    });

    test('the worker sweeps on start and stops cleanly', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      gw.clock.now += gw.config.transactionTtlMs;
      const worker = expirySweeperWorker(
        { ...gw.services, config: { ...gw.config, sweepIntervalMs: 20 } },
        createLogger('silent'),
      );
      worker.start();
      try {
        for (let i = 0; i < 200 && (await snapshot(gw, p.transactionid)).status === 'PROCESSING'; i++)
          await new Promise((r) => setTimeout(r, 10));
      } finally {
        await worker.stop();
      }
      assert.equal((await snapshot(gw, p.transactionid)).errorCodeTag, 'EXPIRED');
    });
  });
}
