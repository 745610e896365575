// Result notifications end to end (docs/notifications.md): a real receiver on 127.0.0.1, the real
// worker, payments made through the HTTP API. Signatures are checked with node:crypto directly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, type MerchantCredentials } from '../support/test-gateway.ts';
import { resendNotification } from '../../src/app/resend-notification.ts';
import { OutboxClaimsRepo } from '../../src/store/repos/outbox-claims.repo.ts';
import { sealSecret } from '../../src/domain/secret-box.ts';
import {
  Receiver,
  answer,
  completePayment,
  eventOf,
  hang,
  independentSignature,
  reset,
  sequence,
  signaturesOf,
  startDeliveryGateway,
  type DeliveryGateway,
} from '../support/delivery.ts';

const CONTRACT_FIELDS = [
  'type',
  'result',
  'responsecode',
  'trackid',
  'merchantid',
  'transactionid',
  'token',
  'bill_amount',
  'bill_currencycode',
  'payment_method',
  'error_code_tag',
  'error_text',
  'event_id',
  'created_at',
].sort();

for (const { dialect, skip } of await testDialects()) {
  describe(`notification delivery [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      // Six rungs: enough for the five-failure retry test; the "last rung" test uses its own gateway.
      d = await startDeliveryGateway(dialect, { RETRY_LADDER: '0,20ms,20ms,20ms,20ms,20ms' });
      creds = await addMerchant(d.gw);
    });
    after(async () => {
      await d?.close();
      await receiver?.close();
    });

    test('a successful payment is notified once with the documented body, headers and a valid signature', async () => {
      const url = receiver.on('/hook/success', answer(200, {}, 'thanks'));
      const payment = await completePayment(d.gw, creds, url, { amount: '1000' });
      await receiver.waitFor(() => receiver.to('/hook/success').length === 1, 'the notification');
      await d.worker.idle();
      const [got] = receiver.to('/hook/success');
      const body = JSON.parse(got!.body.toString('utf8'));
      const event = await eventOf(d.outbox, payment.transactionid);
      const stored = await d.gw.services.transactions.findById(creds.merchantid, payment.transactionid);

      assert.deepEqual(Object.keys(body).sort(), CONTRACT_FIELDS);
      assert.deepEqual(body, {
        type: 'valid',
        result: 'CAPTURED',
        responsecode: '0',
        trackid: payment.trackid,
        merchantid: creds.merchantid,
        transactionid: payment.transactionid,
        token: payment.token,
        bill_amount: '1000.00',
        bill_currencycode: 'THB',
        payment_method: 'THAI_DEBIT',
        error_code_tag: null,
        error_text: null,
        event_id: event.id,
        created_at: new Date(stored!.completedAt!).toISOString(),
      });
      assert.equal(got!.body.toString('utf8'), event.payload, 'the stored bytes are what is sent');

      assert.equal(got!.headers['content-type'], 'application/json');
      assert.match(String(got!.headers['user-agent']), /^thaiqr-gateway\/\d+\.\d+\.\d+/);
      assert.equal(got!.headers['webhook-id'], event.id);
      const timestamp = String(got!.headers['webhook-timestamp']);
      assert.match(timestamp, /^\d+$/);
      assert.ok(Math.abs(Number(timestamp) - d.gw.clock.now / 1000) < 30, 'timestamp is Unix seconds of the attempt');
      assert.deepEqual(signaturesOf(got!), [
        independentSignature(creds.webhook_secret, event.id, timestamp, got!.body),
      ]);
      const signatureHeaders = Object.keys(got!.headers).filter((h) => /sign|hmac/i.test(h));
      assert.deepEqual(signatureHeaders, ['webhook-signature'], 'no other signature header');

      assert.equal(event.status, 'delivered');
      assert.equal(event.attempts, 1);
      const attempts = await d.outbox.attempts(event.id);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.httpStatus, 200);
      assert.equal(attempts[0]!.error, null);
      assert.equal(attempts[0]!.responseExcerpt, 'thanks');
      assert.equal(attempts[0]!.instanceId, d.worker.instanceId);
      assert.ok(attempts[0]!.latencyMs >= 0);
    });

    test(
      'SQLite: the claim’s lease and the attempt are store jobs, committed in groups (no fsync of their own)',
      { skip: dialect !== 'sqlite' && 'SQLite only' },
      async () => {
        const jobs = d.gw.testStore.engine.sqliteJobs!;
        const run = jobs.run;
        const names: string[] = [];
        // A spy, not a stub: every job still runs on the writer thread.
        (jobs as { run: typeof run }).run = (name, args) => (names.push(name), run(name, args));
        try {
          const url = receiver.on('/hook/jobs', answer(200));
          await completePayment(d.gw, creds, url);
          await receiver.waitFor(() => receiver.to('/hook/jobs').length === 1, 'the notification');
          await d.worker.idle();
        } finally {
          (jobs as { run: typeof run }).run = run;
        }
        assert.ok(names.includes('leaseOutboxEvents'), `jobs run: ${names.join(', ')}`);
        assert.ok(names.includes('recordAttempts'), `jobs run: ${names.join(', ')}`);
      },
    );

    test(
      'a completion tells the worker where its notification ' + 'goes: the event is claimed without reading it back',
      async () => {
        const originsOf = OutboxClaimsRepo.prototype.originsOf;
        let reads = 0;
        // A spy, not a stub: a read, should one happen, still runs.
        OutboxClaimsRepo.prototype.originsOf = function (ids) {
          reads += 1;
          return originsOf.call(this, ids);
        };
        try {
          const url = receiver.on('/hook/origin-known', answer(200));
          await completePayment(d.gw, creds, url);
          await receiver.waitFor(() => receiver.to('/hook/origin-known').length === 1, 'the notification');
          await d.worker.idle();
        } finally {
          OutboxClaimsRepo.prototype.originsOf = originsOf;
        }
        assert.equal(reads, 0);
      },
    );

    test('a declined payment is notified as Not Successful / 6 / DECLINED', async () => {
      const url = receiver.on('/hook/declined', answer(200));
      const payment = await completePayment(d.gw, creds, url, { amount: '15000' });
      await receiver.waitFor(() => receiver.to('/hook/declined').length === 1, 'the notification');
      const body = JSON.parse(receiver.to('/hook/declined')[0]!.body.toString('utf8'));
      assert.equal(body.transactionid, payment.transactionid);
      assert.equal(body.result, 'Not Successful');
      assert.equal(body.responsecode, '6');
      assert.equal(body.error_code_tag, 'DECLINED');
      assert.equal(typeof body.error_text, 'string');
      assert.equal(body.bill_amount, '15000.00');
    });

    test('500, timeout, connection reset and 302 are retried with the same id and byte-identical body', async () => {
      const redirected = receiver.on('/hook/elsewhere', answer(200));
      const url = receiver.on(
        '/hook/flaky',
        sequence(answer(500, {}, 'boom'), hang, reset, answer(302, { location: redirected }), answer(204, {}, '')),
      );
      const payment = await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.to('/hook/flaky').length === 5, 'five attempts');
      await d.worker.idle();
      const got = receiver.to('/hook/flaky');
      const event = await eventOf(d.outbox, payment.transactionid);

      for (const r of got) {
        assert.ok(r.body.equals(got[0]!.body), 'same body bytes on every attempt');
        assert.equal(r.headers['webhook-id'], event.id);
        const ts = String(r.headers['webhook-timestamp']);
        assert.deepEqual(signaturesOf(r), [independentSignature(creds.webhook_secret, event.id, ts, r.body)]);
      }
      assert.equal(receiver.to('/hook/elsewhere').length, 0, 'the redirect was not followed');

      const attempts = await d.outbox.attempts(event.id);
      assert.deepEqual(
        attempts.map((a) => a.httpStatus),
        [500, null, null, 302, 204],
      );
      assert.equal(attempts[0]!.responseExcerpt, 'boom');
      assert.match(attempts[1]!.error!, /timeout/);
      assert.match(attempts[2]!.error!, /ECONNRESET|socket hang up/);
      assert.match(attempts[3]!.error!, /redirect/);
      assert.equal(attempts[4]!.error, null);
      assert.deepEqual(
        attempts.map((a) => a.attemptNo),
        [1, 2, 3, 4, 5],
      );
      assert.equal(event.status, 'delivered');
      assert.equal(event.attempts, 5);
    });

    test('Retry-After on 503 (seconds) and 429 (HTTP date) pushes the next attempt out', async () => {
      const url = receiver.on(
        '/hook/busy',
        sequence(
          answer(503, { 'retry-after': '120' }),
          answer(429, { 'retry-after': new Date(d.gw.clock.now + 600_000).toUTCString() }),
          answer(200),
        ),
      );
      const payment = await completePayment(d.gw, creds, url);
      await receiver.waitFor(() => receiver.to('/hook/busy').length === 1, 'the first attempt');
      await d.worker.idle();
      let event = await eventOf(d.outbox, payment.transactionid);
      let [first] = await d.outbox.attempts(event.id);
      assert.equal(event.status, 'pending');
      assert.ok(
        event.nextAttemptAt - first!.startedAt >= 120_000,
        `next attempt ${event.nextAttemptAt - first!.startedAt} ms later, want >= 120 s`,
      );

      // Not due yet: waking the worker sends nothing (the 20 ms rung alone would have).
      await d.worker.wake();
      await d.worker.idle();
      assert.equal(receiver.to('/hook/busy').length, 1);

      d.advance(121_000);
      await d.worker.wake();
      await receiver.waitFor(() => receiver.to('/hook/busy').length === 2, 'the second attempt');
      await d.worker.idle();
      event = await eventOf(d.outbox, payment.transactionid);
      const second = (await d.outbox.attempts(event.id))[1]!;
      assert.equal(second.httpStatus, 429);
      // The date was 600 s after the first attempt; the second came ~121 s later, so ~479 s remain.
      assert.ok(
        event.nextAttemptAt - second.startedAt >= 470_000,
        `next attempt ${event.nextAttemptAt - second.startedAt} ms later`,
      );

      d.advance(600_000);
      await d.worker.wake();
      await receiver.waitFor(() => receiver.to('/hook/busy').length === 3, 'the third attempt');
      await d.worker.idle();
      assert.equal((await eventOf(d.outbox, payment.transactionid)).status, 'delivered');
    });

    test('key rotation: both secrets sign while the previous one is valid, then only the new one', async () => {
      const rotating = await addMerchant(d.gw);
      const rotated = await d.gw.services.manageMerchants.rotateWebhookSecret(rotating.merchantid);
      await d.gw.services.directory.refresh();
      const url = receiver.on('/hook/rotation', answer(200));

      const during = await completePayment(d.gw, rotating, url);
      await receiver.waitFor(() => receiver.to('/hook/rotation').length === 1, 'the first notification');
      const a = receiver.to('/hook/rotation')[0]!;
      const ts = String(a.headers['webhook-timestamp']);
      const id = (await eventOf(d.outbox, during.transactionid)).id;
      assert.deepEqual(signaturesOf(a), [
        independentSignature(rotated.webhook_secret, id, ts, a.body),
        independentSignature(rotating.webhook_secret, id, ts, a.body),
      ]);

      d.advance(d.gw.config.webhookSecretOverlapMs + 60_000);
      const afterOverlap = await completePayment(d.gw, rotating, url);
      await receiver.waitFor(() => receiver.to('/hook/rotation').length === 2, 'the second notification');
      const b = receiver.to('/hook/rotation')[1]!;
      const id2 = (await eventOf(d.outbox, afterOverlap.transactionid)).id;
      assert.deepEqual(signaturesOf(b), [
        independentSignature(rotated.webhook_secret, id2, String(b.headers['webhook-timestamp']), b.body),
      ]);
    });

    test(
      'rotating a secret sealed under another key drops ' + 'it, and notifications flow signed with the new one',
      async () => {
        const stale = await addMerchant(d.gw);
        // A merchant row written under another GATEWAY_SECRET_KEY: this key cannot open its secret.
        await d.gw.services.merchants.update(
          stale.merchantid,
          { webhookSecretSealed: sealSecret(Buffer.alloc(32, 7), 'whsec_c2VhbGVkIHVuZGVyIGFub3RoZXIga2V5') },
          d.gw.clock.now,
        );
        const rotated = await d.gw.services.manageMerchants.rotateWebhookSecret(stale.merchantid);
        assert.equal(rotated.previous_valid_until, null, 'the unopenable secret is not kept for the overlap');
        const record = await d.gw.services.merchants.findById(stale.merchantid);
        assert.equal(record?.previousWebhookSecretSealed, null);
        await d.gw.services.directory.refresh();

        const url = receiver.on('/hook/stale-key', answer(200));
        const paid = await completePayment(d.gw, stale, url);
        await receiver.waitFor(
          () => receiver.to('/hook/stale-key').length === 1,
          'the notification after the rotation',
        );
        const got = receiver.to('/hook/stale-key')[0]!;
        const id = (await eventOf(d.outbox, paid.transactionid)).id;
        assert.deepEqual(signaturesOf(got), [
          independentSignature(rotated.webhook_secret, id, String(got.headers['webhook-timestamp']), got.body),
        ]);
      },
    );
  });

  describe(`notification gives up after the last rung, and resend [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect, { RETRY_LADDER: '0,20ms,20ms' });
      creds = await addMerchant(d.gw);
    });
    after(async () => {
      await d?.close();
      await receiver?.close();
    });

    test(
      'three failures on a three-rung ladder → failed, visible, ' +
        'no fourth attempt; resend delivers with the same id and body',
      async () => {
        let healthy = false;
        const url = receiver.on('/hook/down', (res, req, n) => answer(healthy ? 200 : 500)(res, req, n));
        const payment = await completePayment(d.gw, creds, url);
        await receiver.waitFor(() => receiver.to('/hook/down').length === 3, 'three attempts');
        await d.worker.idle();
        let event = await eventOf(d.outbox, payment.transactionid);
        assert.equal(event.status, 'failed');
        assert.equal(event.lastError, 'HTTP 500');
        assert.equal(event.attempts, 3);
        d.advance(3_600_000);
        await d.worker.wake();
        await d.worker.idle();
        assert.equal(receiver.to('/hook/down').length, 3, 'nothing after the last rung');
        assert.deepEqual(
          (await d.outbox.list({ status: 'failed' })).map((e) => e.id),
          [event.id],
        );

        healthy = true;
        const resent = await resendNotification(d.gw.services.store, event.id, d.gw.clock.now);
        assert.deepEqual(resent, { eventId: event.id, series: 2, previousStatus: 'failed' });
        await d.worker.wake();
        await receiver.waitFor(() => receiver.to('/hook/down').length === 4, 'the resent notification');
        await d.worker.idle();
        const all = receiver.to('/hook/down');
        assert.ok(all[3]!.body.equals(all[0]!.body));
        assert.equal(all[3]!.headers['webhook-id'], event.id);
        event = await eventOf(d.outbox, payment.transactionid);
        assert.equal(event.status, 'delivered');
        assert.equal(event.series, 2);
        assert.equal(event.attempts, 1);
        const attempts = await d.outbox.attempts(event.id);
        assert.deepEqual(
          attempts.map((a) => [a.attemptNo, a.series, a.httpStatus]),
          [
            [1, 1, 500],
            [2, 1, 500],
            [3, 1, 500],
            [4, 2, 200],
          ],
        );
      },
    );

    test('resending an unknown event is NOT_FOUND', async () => {
      await assert.rejects(resendNotification(d.gw.services.store, 'evt_nope', d.gw.clock.now), { tag: 'NOT_FOUND' });
    });
  });
}
