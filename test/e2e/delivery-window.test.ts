// The per-origin window (docs/notifications.md "How it works"): a merchant endpoint that answers
// healthily gets more notifications in flight than DELIVERY_PER_HOST_CONCURRENCY, up to
// DELIVERY_PER_HOST_MAX_CONCURRENCY, so its notifications keep up with its payments; one that
// answers 503 stays at the floor, paced as a fixed cap paced it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant } from '../support/test-gateway.ts';
import {
  Receiver,
  answer,
  completePayment,
  slow,
  startDeliveryGateway,
  type Behaviour,
  type DeliveryGateway,
} from '../support/delivery.ts';

const FLOOR = 2;
const MAX = 10;

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery window per origin [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    // One receiver per test: an origin is scheme, host and port, and each test needs a fresh one.
    const shops: Receiver[] = [];
    before(async () => {
      d = await startDeliveryGateway(dialect, {
        DELIVERY_CONCURRENCY: '32',
        DELIVERY_PER_HOST_CONCURRENCY: String(FLOOR),
        DELIVERY_PER_HOST_MAX_CONCURRENCY: String(MAX),
      });
    });
    after(async () => {
      for (const shop of shops) await shop.close();
      await d?.close();
    });

    /** Completes `count` payments notifying `path`; resolves with the most requests open at once until all arrived. */
    async function peakOpen(behaviour: Behaviour, count: number): Promise<number> {
      const shop = await Receiver.start();
      shops.push(shop);
      const path = '/hook';
      const url = shop.on(path, behaviour);
      const merchant = await addMerchant(d.gw);
      let peak = 0;
      const arrived = shop.waitFor(
        () => {
          const mine = shop.to(path);
          peak = Math.max(peak, mine.filter((r) => r.open).length);
          return new Set(mine.map((r) => JSON.parse(r.body.toString()).transactionid)).size >= count;
        },
        `${count} notifications`,
        60_000,
      );
      for (let i = 0; i < count; i++) await completePayment(d.gw, merchant, url);
      await arrived;
      return peak;
    }

    test('a healthy endpoint (100 ms answers) gets more than the floor in flight, at most the maximum', async () => {
      const peak = await peakOpen(slow(100, answer(204)), 200);
      assert.ok(peak > FLOOR, `the window grew past ${FLOOR} (peak ${peak})`);
      assert.ok(peak <= MAX, `never more than ${MAX} open (peak ${peak})`);
    });

    test('an endpoint answering 503 stays at the floor', async () => {
      const peak = await peakOpen(slow(100, answer(503)), 60);
      assert.ok(peak <= FLOOR, `at most ${FLOOR} open at once (peak ${peak})`);
    });
  });
}
