// A dead merchant endpoint (connection refused) must not take the delivery worker's time from
// everyone else (docs/notifications.md "How it works"): after an attempt that got no HTTP answer,
// the origin's send slot stays taken for UNREACHABLE_HOLD_MS, so its backlog is attempted at a
// bounded pace while a healthy endpoint's notifications go out at once. Every attempt is still made
// and stored: each dead event climbs its whole ladder and ends `failed` (docs/notifications.md
// "Retries").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, type MerchantCredentials } from '../support/test-gateway.ts';
import { UNREACHABLE_HOLD_MS } from '../../src/delivery/delivery-worker.ts';
import {
  Receiver,
  answer,
  completePayment,
  eventOf,
  startDeliveryGateway,
  type DeliveryGateway,
  type Payment,
} from '../support/delivery.ts';

const PER_HOST = 2;
const DEAD_EVENTS = 16;
const LADDER_ATTEMPTS = 3; // FAST_DELIVERY_ENV's ladder: 0, 20 ms, 20 ms
const MIN_HOLD_MS = 200;

/** A loopback port nothing listens on: connections to it are refused at once. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const { dialect, skip } of await testDialects()) {
  describe(`a dead endpoint's backlog [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect, {
        DELIVERY_PER_HOST_CONCURRENCY: String(PER_HOST),
        DELIVERY_CONCURRENCY: '8',
      });
      creds = await addMerchant(d.gw);
    });
    after(async () => {
      await receiver?.close();
      await d?.close();
    });

    test(
      'is attempted at a bounded pace, a healthy endpoint is served ' + 'meanwhile, and every attempt is still made',
      async () => {
        const dead = `http://127.0.0.1:${await deadPort()}/hook`;
        const started = Date.now();
        const payments: Payment[] = [];
        for (let i = 0; i < DEAD_EVENTS; i++) payments.push(await completePayment(d.gw, creds, dead));
        const attempts = async () => {
          let n = 0;
          for (const p of payments) n += (await eventOf(d.outbox, p.transactionid)).attempts;
          return n;
        };

        await completePayment(d.gw, creds, receiver.on('/hook/alive', answer(204)));
        await receiver.waitFor(
          () => receiver.to('/hook/alive').length === 1,
          'the healthy endpoint’s notification',
          3000,
        );

        // Without the hold the refusals come back at once and the attempts run as fast as they can
        // be recorded; with it, at most PER_HOST start per hold (timers never fire early, so a slow
        // machine only makes fewer). The bound assumes a hold of at least MIN_HOLD_MS.
        assert.ok(UNREACHABLE_HOLD_MS >= MIN_HOLD_MS);
        const elapsed = Date.now() - started;
        const made = await attempts();
        const bound = PER_HOST * (Math.floor(elapsed / MIN_HOLD_MS) + 1);
        assert.ok(made <= bound, `${made} attempts in ${elapsed} ms: at most ${bound} expected`);

        // Nothing is skipped: every dead event climbs its whole ladder and ends failed.
        const deadline = Date.now() + 30_000;
        while ((await attempts()) < DEAD_EVENTS * LADDER_ATTEMPTS && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        for (const p of payments) {
          const event = await eventOf(d.outbox, p.transactionid);
          assert.equal(event.attempts, LADDER_ATTEMPTS);
          assert.equal(event.status, 'failed');
          assert.equal((await d.outbox.attempts(event.id)).length, LADDER_ATTEMPTS, 'every attempt is stored');
        }
      },
    );
  });
}
