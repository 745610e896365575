// The outbound policy at delivery time (docs/notifications.md "Where notifications may go"): live
// mode refuses loopback, private and metadata targets — including a name that resolves to loopback
// when the worker connects (DNS rebinding) — and records a failed attempt saying why; sandbox
// delivers to loopback. Live mode needs a bank connector to serve, so a worker with the live
// configuration runs against a store filled by a sandbox gateway. Refused targets are never
// connected to.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  startTestGateway,
  testConfig,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { createServices } from '../../src/compose/services.ts';
import { createLogger } from '../../src/logger.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../src/delivery/delivery-worker.ts';
import type { Resolver } from '../../src/delivery/guarded-lookup.ts';
import { OutboxRepo } from '../../src/store/repos/outbox.repo.ts';
import { FAST_DELIVERY_ENV, Receiver, answer, completePayment } from '../support/delivery.ts';

// Answers like an attacker's DNS zone: a harmless-looking name that points at loopback.
const rebindingDns: Resolver = (_host, _opts, cb) =>
  cb(null, [{ address: '127.0.0.1', family: 4 } satisfies LookupAddress]);

for (const { dialect, skip } of await testDialects()) {
  describe(`outbound policy at delivery time [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let receiver: Receiver;
    let outbox: OutboxRepo;
    const env = { ...FAST_DELIVERY_ENV, RETRY_LADDER: '0' }; // one attempt, then failed

    before(async () => {
      receiver = await Receiver.start();
      gw = await startTestGateway(dialect, env);
      creds = await addMerchant(gw);
      outbox = new OutboxRepo(gw.testStore.db, gw.services.store.kind);
    });
    after(async () => {
      await gw?.close();
      await receiver?.close();
    });

    /** Runs one worker in `mode` over the shared store until everything due was attempted. */
    async function deliverAll(mode: 'live' | 'sandbox', options: DeliveryWorkerOptions = {}): Promise<void> {
      const config = testConfig({
        ...env,
        DATABASE_URL: gw.testStore.databaseUrl,
        GATEWAY_MODE: mode,
        PUBLIC_BASE_URL: mode === 'live' ? 'https://pay.example.com' : 'http://127.0.0.1:8080',
        OUTBOUND_ALLOW_HTTP: 'true', // so refusals below are about the address, not the scheme
      });
      const services = createServices(config, gw.services.store, config.secretKey!, { now: () => gw.clock.now });
      const worker = new DeliveryWorker(services, createLogger('silent'), { resolver: rebindingDns, ...options });
      worker.start();
      await worker.wake();
      await worker.idle();
      await worker.stop();
    }

    /** A payment whose notification goes to `target` (set directly when sandbox initiation would refuse it). */
    async function eventFor(target: string): Promise<string> {
      const payment = await completePayment(gw, creds, receiver.on('/placeholder', answer(200)));
      const event = (await outbox.findByTransaction(payment.transactionid))!;
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ target_url: target })
        .where('id', '=', event.id)
        .execute();
      return event.id;
    }

    async function onlyAttempt(id: string) {
      const event = (await outbox.findById(id))!;
      const attempts = await outbox.attempts(id);
      assert.equal(attempts.length, 1);
      return { event, attempt: attempts[0]! };
    }

    test(
      'live: loopback (literal, localhost, rebinding name), ' + 'private and metadata targets are refused and recorded',
      async () => {
        const port = new URL(receiver.url).port;
        const targets = {
          loopback: `http://127.0.0.1:${port}/hook/live`,
          localhost: `http://localhost:${port}/hook/live`,
          rebinding: `http://rebind.example.com:${port}/hook/live`,
          private: 'http://10.1.2.3/hook',
          metadata: 'http://169.254.169.254/latest/meta-data/',
          metadataV6: 'http://[fd00:ec2::254]/latest/meta-data/',
        };
        const ids = Object.fromEntries(
          await Promise.all(Object.entries(targets).map(async ([name, url]) => [name, await eventFor(url)] as const)),
        );
        const before = receiver.requests.length;
        await deliverAll('live');

        assert.equal(receiver.requests.length, before, 'nothing reached the receiver');
        const reasons: Record<string, RegExp> = {
          loopback: /127\.0\.0\.1 is loopback/,
          localhost: /localhost is loopback/,
          rebinding: /rebind\.example\.com.*127\.0\.0\.1 is loopback/,
          private: /10\.1\.2\.3 is private/,
          metadata: /169\.254\.169\.254 is metadata/,
          metadataV6: /metadata/,
        };
        for (const [name, id] of Object.entries(ids)) {
          const { event, attempt } = await onlyAttempt(id);
          assert.equal(event.status, 'failed', name);
          assert.equal(attempt.httpStatus, null, name);
          assert.match(attempt.error!, /^refused by the outbound policy: /, name);
          assert.match(attempt.error!, reasons[name]!, name);
          assert.match(event.lastError!, /refused by the outbound policy/, name);
        }
      },
    );

    test('live: an allow-list entry lets a loopback target through', async () => {
      const url = receiver.on('/hook/allowed', answer(200));
      const id = await eventFor(url);
      await deliverAll('live', { policy: { mode: 'live', allowHttp: true, allowList: ['127.0.0.1'] } });
      assert.equal(receiver.to('/hook/allowed').length, 1);
      assert.equal((await onlyAttempt(id)).event.status, 'delivered');
    });

    test(
      'sandbox: loopback targets (literal, localhost, ' +
        'a name resolving to loopback) are delivered; metadata is still refused',
      async () => {
        const port = new URL(receiver.url).port;
        receiver.on('/hook/sandbox', answer(200));
        const delivered = [
          await eventFor(`http://127.0.0.1:${port}/hook/sandbox`),
          await eventFor(`http://localhost:${port}/hook/sandbox`),
          await eventFor(`http://rebind.example.com:${port}/hook/sandbox`),
        ];
        const metadata = await eventFor('http://169.254.169.254/latest/meta-data/');
        await deliverAll('sandbox');
        assert.equal(receiver.to('/hook/sandbox').length, 3);
        for (const id of delivered) assert.equal((await onlyAttempt(id)).event.status, 'delivered');
        const refused = await onlyAttempt(metadata);
        assert.equal(refused.event.status, 'failed');
        assert.match(refused.attempt.error!, /refused by the outbound policy: .*metadata/);
      },
    );
  });
}
