// Per-target fairness: a merchant endpoint that answers after 5 s holds at most its per-host
// share of the delivery slots, so another merchant's notification goes out at once.
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
  type DeliveryGateway,
} from '../support/delivery.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery fairness [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let slowShop: Receiver;
    let fastShop: Receiver;
    before(async () => {
      slowShop = await Receiver.start();
      fastShop = await Receiver.start();
      d = await startDeliveryGateway(dialect, {
        DELIVERY_CONCURRENCY: '4',
        DELIVERY_PER_HOST_CONCURRENCY: '2',
        DELIVERY_TIMEOUT: '10s',
        DELIVERY_LEASE: '30s',
      });
    });
    after(async () => {
      await slowShop?.close(); // ends the slow sends now instead of after 5 s
      await fastShop?.close();
      await d?.close();
    });

    test('a slow endpoint (5 s) does not delay another merchant by more than a second', async () => {
      const a = await addMerchant(d.gw);
      const b = await addMerchant(d.gw);
      const slowUrl = slowShop.on('/hook', slow(5000));
      const fastUrl = fastShop.on('/hook', answer(200));
      let maxOpen = 0;
      const openNow = () => slowShop.requests.filter((r) => r.open).length;

      // More slow events than the whole worker has slots.
      for (let i = 0; i < 8; i++) await completePayment(d.gw, a, slowUrl);
      await slowShop.waitFor(() => slowShop.requests.length >= 2, 'the slow endpoint to be busy');

      const completedAt = Date.now();
      const fast = await completePayment(d.gw, b, fastUrl);
      await fastShop.waitFor(() => fastShop.requests.length === 1, "the other merchant's notification", 4000);
      const delay = fastShop.requests[0]!.at - completedAt;
      maxOpen = Math.max(maxOpen, openNow());

      assert.equal(JSON.parse(fastShop.requests[0]!.body.toString()).transactionid, fast.transactionid);
      assert.ok(delay < 1000, `delivered ${delay} ms after completion`);
      assert.ok(
        slowShop.requests.every((r) => r.open),
        'it went out while every slow send was still waiting for its answer',
      );
      assert.equal(slowShop.requests.length, 2, 'the slow origin never had more than its 2 slots');
      assert.ok(maxOpen <= 2);
    });
  });
}
