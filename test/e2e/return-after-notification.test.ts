// The customer returns only after the result was sent (docs/hosted-page.md, "Back to the
// merchant"), on both stores, with the real delivery worker and a real receiver on 127.0.0.1:
// after Confirm/Cancel, and when the page's status poll hands the customer back, the redirect
// waits for the first delivery attempt of the result notification to finish (delivered or not),
// bounded by RETURN_WAIT_FOR_NOTIFICATION; across instances the store poll finds an attempt
// another instance recorded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.ts';
import { createServices } from '../../src/compose/services.ts';
import { buildApp } from '../../src/http/build-app.ts';
import { httpDepsFrom } from '../../src/compose/http-deps.ts';
import { openStore } from '../../src/store/open-store.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, LogCapture, post, testConfig, type MerchantCredentials } from '../support/test-gateway.ts';
import { pressButton } from '../support/hosted-page-form.ts';
import { startPayment } from '../support/lifecycle.ts';
import { answer, hang, Receiver, slow, startDeliveryGateway, type DeliveryGateway } from '../support/delivery.ts';

const SLOW_MS = 300;

for (const { dialect, skip } of await testDialects()) {
  describe(`return after the notification [${dialect}]`, { skip, timeout: 120_000 }, () => {
    let receiver: Receiver;
    let dg: DeliveryGateway;
    let creds: MerchantCredentials;

    before(async () => {
      receiver = await Receiver.start();
      // The delivery timeout is far above the wait bound, so a hanging receiver ends the wait by the bound.
      dg = await startDeliveryGateway(dialect, {
        RETURN_WAIT_FOR_NOTIFICATION: '1500ms',
        DELIVERY_TIMEOUT: '20s',
        DELIVERY_LEASE: '30s',
        RETRY_LADDER: '0,10m',
      });
      creds = await addMerchant(dg.gw);
    });
    after(async () => {
      await receiver?.close(); // ends hanging requests, so the worker's sends finish
      await dg?.close();
    });

    const payment = (path: string, amount = '500') =>
      startPayment(dg.gw, creds, { bill_amount: amount, serverUrl: receiver.on(path, answer(200)) });
    const attemptsOf = async (transactionId: string) => {
      const event = await dg.outbox.findByTransaction(transactionId);
      return event ? (await dg.outbox.attempts(event.id)).length : 0;
    };

    test('confirm: the 303 comes after a slow receiver has the notification and answered', async () => {
      const p = await payment('/slow-confirm');
      receiver.on('/slow-confirm', slow(SLOW_MS));
      const res = await pressButton(dg.gw, p.redirectId, 'confirm');
      assert.equal(res.status, 303);
      assert.match(String(res.headers.location), /result=CAPTURED/);
      const got = receiver.to('/slow-confirm');
      assert.equal(got.length, 1, 'the receiver had the notification before the customer was sent back');
      assert.equal(got[0]!.open, false, 'and had answered it');
      assert.equal(JSON.parse(got[0]!.body.toString()).transactionid, p.transactionid);
      assert.equal(await attemptsOf(p.transactionid), 1);
    });

    test(
      'cancel: same, and a failing receiver (500) does not hold ' + 'the customer: redirected after the failed attempt',
      async () => {
        const p = await payment('/fail-cancel', '100');
        receiver.on('/fail-cancel', slow(SLOW_MS, answer(500)));
        const res = await pressButton(dg.gw, p.redirectId, 'cancel');
        assert.equal(res.status, 303);
        assert.match(String(res.headers.location), /responsecode=6/);
        assert.equal(receiver.to('/fail-cancel').length, 1);
        assert.equal(receiver.to('/fail-cancel')[0]!.open, false);
        const event = await dg.outbox.findByTransaction(p.transactionid);
        assert.equal(event?.status, 'pending', 'the failed attempt was recorded; a retry is scheduled');
        assert.equal(await attemptsOf(p.transactionid), 1);
      },
    );

    test(
      'a receiver that never answers: the redirect still comes, ' + 'after the bound, while the attempt is still open',
      async () => {
        const p = await payment('/hang-confirm');
        receiver.on('/hang-confirm', hang);
        const res = await pressButton(dg.gw, p.redirectId, 'confirm');
        assert.equal(res.status, 303);
        assert.match(String(res.headers.location), /result=CAPTURED/);
        const got = receiver.to('/hang-confirm');
        assert.equal(got.length, 1, 'the attempt had started');
        assert.equal(got[0]!.open, true, 'the receiver has not answered: the bound, not the attempt, ended the wait');
        assert.equal(await attemptsOf(p.transactionid), 0);
        assert.match(dg.gw.logs.text, /customer sent back before the first notification attempt finished/);
      },
    );

    test("the page's status poll hands the customer back only after the first attempt", async () => {
      const p = await payment('/slow-poll');
      receiver.on('/slow-poll', slow(SLOW_MS));
      // The payment ends elsewhere (here the sandbox API; in live mode the processor).
      await post(dg.gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: p.transactionid,
      });
      const res = await dg.gw.app.inject({ method: 'GET', url: `/transaction/Redirect/status?ID=${p.redirectId}` });
      const body = res.json() as { state: string; returnUrl: string };
      assert.equal(body.state, 'SUCCESS');
      assert.match(body.returnUrl, /result=CAPTURED/);
      assert.equal(receiver.to('/slow-poll').length, 1);
      assert.equal(receiver.to('/slow-poll')[0]!.open, false);
    });

    test(
      'another instance without a delivery worker waits too: ' +
        'the store poll sees the attempt this instance records',
      async () => {
        // Instance B: its own store connection, services and app, no worker. Instance A (dg) delivers.
        const config = testConfig({ DATABASE_URL: dg.gw.testStore.databaseUrl, RETURN_WAIT_FOR_NOTIFICATION: '10s' });
        const store = openStore(config.databaseUrl);
        const logs = new LogCapture();
        const logger = createLogger('info', logs);
        const services = createServices(config, store, config.secretKey!, { logger });
        const app = await buildApp(httpDepsFrom(services), { logger });
        try {
          await services.directory.refresh();
          const p = await payment('/slow-other');
          receiver.on('/slow-other', slow(SLOW_MS));
          let released = false;
          const original = services.notificationWaits.attemptRecorded.bind(services.notificationWaits);
          services.notificationWaits.attemptRecorded = (id) => {
            released = true;
            original(id);
          };
          const res = await pressButton({ app }, p.redirectId, 'confirm');
          assert.equal(res.status, 303);
          assert.equal(released, false, 'instance B has no worker: nothing released it in process');
          assert.doesNotMatch(
            logs.text,
            /customer sent back before the first notification attempt finished/,
            'the poll, not the 10 s bound, ended the wait',
          );
          assert.equal(receiver.to('/slow-other').length, 1);
          assert.equal(receiver.to('/slow-other')[0]!.open, false, 'B redirected only after A recorded the attempt');
          assert.equal(await attemptsOf(p.transactionid), 1);
        } finally {
          await app.close();
          await store.close();
        }
      },
    );
  });

  describe(`RETURN_WAIT_FOR_NOTIFICATION=0 [${dialect}]`, { skip, timeout: 60_000 }, () => {
    let receiver: Receiver;
    let dg: DeliveryGateway;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      dg = await startDeliveryGateway(dialect, {
        RETURN_WAIT_FOR_NOTIFICATION: '0',
        DELIVERY_TIMEOUT: '20s',
        DELIVERY_LEASE: '30s',
        RETRY_LADDER: '0,10m',
      });
      creds = await addMerchant(dg.gw);
    });
    after(async () => {
      await receiver?.close();
      await dg?.close();
    });

    test('disables the wait: the customer is sent back with no attempt recorded yet', async () => {
      const p = await startPayment(dg.gw, creds, { bill_amount: '500', serverUrl: receiver.on('/hang', hang) });
      const res = await pressButton(dg.gw, p.redirectId, 'confirm');
      assert.equal(res.status, 303);
      const event = await dg.outbox.findByTransaction(p.transactionid);
      assert.ok(event);
      assert.equal((await dg.outbox.attempts(event.id)).length, 0);
    });
  });
}
