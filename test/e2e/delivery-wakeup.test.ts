// How the worker learns there is work, and how it stops. The poll is set to 10 minutes here,
// so anything delivered promptly was woken by the mechanism under test.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, type MerchantCredentials } from '../support/test-gateway.ts';
import { openStore } from '../../src/store/open-store.ts';
import { resendNotification } from '../../src/app/resend-notification.ts';
import {
  Receiver,
  answer,
  completePayment,
  eventOf,
  sequence,
  slow,
  startDeliveryGateway,
  type DeliveryGateway,
} from '../support/delivery.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery wake-ups and graceful stop [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect, { DELIVERY_POLL_INTERVAL: '10m', RETRY_LADDER: '0,30ms' });
      creds = await addMerchant(d.gw);
      await d.worker.idle();
    });
    after(async () => {
      await d?.close();
      await receiver?.close();
    });

    test('a finalised payment wakes the worker in-process', async () => {
      const url = receiver.on('/hook/inproc', answer(200));
      await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.to('/hook/inproc').length === 1, 'the notification', 3000);
    });

    test('a retry is sent when its rung is due, not at the next poll', async () => {
      const url = receiver.on('/hook/retry', sequence(answer(500), answer(200)));
      await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.to('/hook/retry').length === 2, 'the retry', 3000);
    });

    test(
      'a resend from another process wakes the worker (PostgreSQL: NOTIFY; SQLite: only the poll)',
      {
        skip:
          dialect === 'sqlite'
            ? 'SQLite has no cross-process signal: a CLI resend is found by the poll (DELIVERY_POLL_INTERVAL)'
            : false,
      },
      async () => {
        const url = receiver.on('/hook/notify', sequence(answer(500), answer(500), answer(200)));
        const payment = await completePayment(d.gw, creds, url);
        await receiver.waitFor(() => receiver.to('/hook/notify').length === 2, 'two failed attempts', 3000);
        await d.worker.idle();
        const event = await eventOf(d.outbox, payment.transactionid);
        assert.equal(event.status, 'failed');
        const other = openStore(d.gw.testStore.databaseUrl); // as the CLI does: its own connections
        try {
          await resendNotification(other, event.id, d.gw.clock.now);
        } finally {
          await other.close();
        }
        await receiver.waitFor(() => receiver.to('/hook/notify').length === 3, 'the resent notification', 3000);
      },
    );

    test('stop() lets an in-flight send finish and be recorded, releases leases, and takes no new work', async () => {
      // The test before waits for its notification to arrive, not for its send to be recorded:
      // let that send finish first, so the count below is this test's send alone.
      while (d.worker.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const url = receiver.on('/hook/stop', slow(300));
      const payment = await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.to('/hook/stop').length === 1, 'the send to start', 3000);
      assert.equal(d.worker.inFlight, 1);
      await d.worker.stop();
      assert.equal(receiver.to('/hook/stop')[0]!.open, false, 'the answer was awaited');
      const event = await eventOf(d.outbox, payment.transactionid);
      assert.equal(event.status, 'delivered');
      assert.equal(event.leaseOwner, null);

      const later = await completePayment(d.gw, creds, url);
      await d.worker.wake();
      assert.equal(receiver.to('/hook/stop').length, 1, 'a stopped worker sends nothing');
      assert.equal(
        (await eventOf(d.outbox, later.transactionid)).status,
        'pending',
        'it stays in the outbox for the next start',
      );
    });
  });
}
