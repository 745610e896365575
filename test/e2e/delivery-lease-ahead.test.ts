// Leasing ahead (docs/notifications.md "How it works"): the worker may lease more of an origin's
// events than it can send at once, to start the next send the moment one ends. What is sent must
// still respect the per-host cap, every event is delivered exactly once in normal operation, and
// events leased but not started go back to the outbox at stop (nothing is lost, nothing is held).
// Refills come in batches as an origin's queue runs down, without waiting for the poll.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials } from '../support/test-gateway.ts';
import { createLogger } from '../../src/logger.ts';
import { DeliveryWorker } from '../../src/delivery/delivery-worker.ts';
import { OutboxRepo } from '../../src/store/repos/outbox.repo.ts';
import {
  FAST_DELIVERY_ENV,
  Receiver,
  answer,
  completePayment,
  eventOf,
  slow,
  startDeliveryGateway,
  type Behaviour,
  type DeliveryGateway,
} from '../support/delivery.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery lease-ahead [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect, {
        DELIVERY_CONCURRENCY: '8',
        DELIVERY_PER_HOST_CONCURRENCY: '2',
        DELIVERY_PER_HOST_MAX_CONCURRENCY: '2', // a fixed window: what is counted here is lease-ahead
        DELIVERY_TIMEOUT: '10s',
        DELIVERY_LEASE: '30s',
      });
      creds = await addMerchant(d.gw);
    });
    after(async () => {
      await receiver?.close();
      await d?.close();
    });

    test(
      'a backlog to one origin: never more than its per-host ' + 'cap open at once, every event delivered exactly once',
      async () => {
        let maxOpen = 0;
        const tracked: Behaviour = (res, req, n) => {
          maxOpen = Math.max(maxOpen, receiver.to('/hook/backlog').filter((r) => r.open).length);
          slow(30)(res, req, n);
        };
        const url = receiver.on('/hook/backlog', tracked);
        const payments = [];
        for (let i = 0; i < 24; i++) payments.push(await completePayment(d.gw, creds, url));
        await receiver.waitFor(
          () => receiver.to('/hook/backlog').length >= payments.length,
          'every notification',
          30_000,
        );
        await d.worker.idle();
        const ids = receiver.to('/hook/backlog').map((r) => JSON.parse(r.body.toString()).transactionid as string);
        assert.deepEqual(
          [...ids].sort(),
          payments.map((p) => p.transactionid).sort(),
          'each payment notified exactly once',
        );
        assert.ok(maxOpen >= 1 && maxOpen <= 2, `at most 2 open at once (saw ${maxOpen})`);
        for (const p of payments) assert.equal((await eventOf(d.outbox, p.transactionid)).status, 'delivered');
      },
    );

    test('stop() gives back the leases of events leased ahead but not started; they stay pending', async () => {
      const url = receiver.on('/hook/held', slow(1500));
      const payments = [];
      for (let i = 0; i < 6; i++) payments.push(await completePayment(d.gw, creds, url));
      await receiver.waitFor(() => receiver.to('/hook/held').length === 2, 'the two allowed sends to start', 5000);
      await d.worker.wake();
      const leased = await Promise.all(payments.map((p) => eventOf(d.outbox, p.transactionid)));
      assert.ok(leased.filter((e) => e.leaseOwner !== null).length > 2, 'more events are leased than are being sent');
      await d.worker.stop();
      assert.equal(receiver.to('/hook/held').length, 2, 'nothing queued was sent after stop');
      const after = await Promise.all(payments.map((p) => eventOf(d.outbox, p.transactionid)));
      assert.deepEqual(
        after.map((e) => e.leaseOwner),
        payments.map(() => null),
        'no lease is left behind',
      );
      assert.equal(after.filter((e) => e.status === 'delivered').length, 2);
      assert.equal(
        after.filter((e) => e.status === 'pending').length,
        4,
        'the rest wait in the outbox for the next start',
      );
    });
  });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery refills a backlog without the poll [${dialect}]`, { skip }, () => {
    test(
      "a backlog several times an origin's depth drains completely, " +
        'each event once, within its per-host cap, with the poll 10 minutes away',
      async () => {
        const receiver = await Receiver.start();
        // No worker yet: the backlog builds up first.
        const gw = await startTestGateway(dialect, {
          ...FAST_DELIVERY_ENV,
          DELIVERY_POLL_INTERVAL: '10m',
          DELIVERY_CONCURRENCY: '4',
          DELIVERY_PER_HOST_CONCURRENCY: '2',
          DELIVERY_PER_HOST_MAX_CONCURRENCY: '2', // a fixed window: what is counted here is lease-ahead
        });
        const worker = new DeliveryWorker(gw.services, createLogger('silent'));
        try {
          const creds = await addMerchant(gw);
          let maxOpen = 0;
          const url = receiver.on('/hook/drain', (res, req, n) => {
            maxOpen = Math.max(maxOpen, receiver.to('/hook/drain').filter((r) => r.open).length);
            answer(200)(res, req, n);
          });
          const payments = [];
          for (let i = 0; i < 120; i++) payments.push(await completePayment(gw, creds, url));
          worker.start();
          await receiver.waitFor(
            () => receiver.to('/hook/drain').length >= payments.length,
            'the whole backlog',
            30_000,
          );
          await worker.idle();
          const ids = receiver.to('/hook/drain').map((r) => JSON.parse(r.body.toString()).transactionid as string);
          assert.deepEqual(
            [...ids].sort(),
            payments.map((p) => p.transactionid).sort(),
            'each payment notified exactly once',
          );
          assert.ok(maxOpen <= 2, `at most 2 open at once (saw ${maxOpen})`);
          const outbox = new OutboxRepo(gw.testStore.db, gw.services.store.kind);
          for (const p of payments) assert.equal((await eventOf(outbox, p.transactionid)).status, 'delivered');
        } finally {
          await worker.stop();
          await gw.close();
          await receiver.close();
        }
      },
    );
  });
}
