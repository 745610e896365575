// KBank's callback is only a hint (docs/connectors/kbank.md "Callback"): in the live gateway
// against kbank-sim, on both stores, forged, edited, broken, oversized and misaddressed callbacks
// change nothing — the payment stays PROCESSING, no notification is written, the ledger does not
// move — and one naming a real QR costs one inquiry at most. The same real callback three times
// (sent by the test, and by kbank-sim's `duplicate:3` mode over HTTP) completes the payment once:
// one SUCCESS, one result notification, one journal entry. A lost callback (kbank-sim's `drop`
// mode) is found by the reconciler.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../../support/dialects.ts';
import { startLiveGateway, CALLBACK_PATH_TOKEN, type LiveGateway } from '../../support/live-gateway.ts';
import { assertUnchanged, snapshot } from '../../support/live-observe.ts';
import type { Started } from '../../support/lifecycle.ts';

const INQUIRY = '/v1/qrpayment/v4/inquiry';
const ENVELOPE = { statusCode: '00', errorCode: null, errorDesc: null };

for (const { dialect, skip } of await testDialects()) {
  describe(`KBank callbacks under faults [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;

    before(async () => {
      gw = await startLiveGateway(dialect);
    });
    after(async () => {
      await gw?.close();
    });

    const shown = () => gw.startShown();
    /** The body kbank-sim builds for `uid` in a callback mode (not sent anywhere: no URL is registered). */
    const simBody = async (uid: string, mode: string) => (await gw.sim.deliverCallback(uid, mode)).body;
    /** Sends a callback and waits for the reconciler's work it may have caused. */
    const send = async (body: string, options?: { token?: string; contentType?: string }) => {
      const answer = await gw.callback(body, options);
      await gw.services.processor.reconciler.wake();
      return answer;
    };
    const bankStatus = (uid: string) => gw.sim.state().records.find((r) => r.partnerTxnUid === uid)?.status;
    /** Every callback logged so far, as `outcome transaction`. */
    const allNotifications = async () =>
      (await gw.testStore.db.selectFrom('processor_notifications').select(['outcome', 'transaction_id']).execute()).map(
        (n) => `${n.outcome} ${n.transaction_id}`,
      );
    /** What is in `now` and was not in `then` (a multiset difference). */
    const added = (then: string[], now: string[]) => {
      const left = [...then];
      return now.filter((x) => (left.includes(x) ? (left.splice(left.indexOf(x), 1), false) : true)).sort();
    };
    const notificationsOf = (p: Started) => gw.services.store.processorNotifications.forTransaction(p.transactionid);

    test('callbacks for no QR of ours, another merchant, broken, too big or on a wrong path: nothing', async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const [attemptBefore] = await gw.attempts(p);
      const inquiries = gw.bankCalls(INQUIRY);
      const recorded = await allNotifications();

      const forged = await simBody(uid, 'forged');
      assert.notEqual(JSON.parse(forged).partnerTxnUid, uid, 'kbank-sim forged an id it never issued');
      assert.deepEqual(JSON.parse((await send(forged)).body), ENVELOPE, 'unknown id: answered, as KBank expects');

      const otherMerchant = await simBody(uid, 'wrongMerchant');
      assert.equal(JSON.parse(otherMerchant).partnerTxnUid, uid, 'our real QR, another merchant id');
      assert.deepEqual(JSON.parse((await send(otherMerchant)).body), ENVELOPE);

      const edited = JSON.stringify({ ...JSON.parse(await simBody(uid, 'normal')), merchantId: 'KB123456789012' });
      assert.deepEqual(JSON.parse((await send(edited)).body), ENVELOPE, 'the body edited before sending');

      const malformed = await simBody(uid, 'malformedJson');
      assert.throws(() => JSON.parse(malformed));
      assert.deepEqual(JSON.parse((await send(malformed)).body), ENVELOPE);

      const oversized = JSON.stringify({ ...JSON.parse(await simBody(uid, 'normal')), pad: 'x'.repeat(17 * 1024) });
      assert.equal((await send(oversized)).status, 413);

      const wrongToken = CALLBACK_PATH_TOKEN.replace(/.$/, (c) => (c === 'f' ? 'e' : 'f'));
      assert.equal((await send(await simBody(uid, 'normal'), { token: wrongToken })).status, 404);

      assert.equal(gw.bankCalls(INQUIRY), inquiries, 'none of them cost an inquiry');
      await assertUnchanged(gw, p, before, 'still PROCESSING, no notification, no ledger posting');
      assert.deepEqual(await gw.attempts(p), [attemptBefore], 'the attempt was not touched (nor its next check)');
      assert.deepEqual(await notificationsOf(p), [], 'none was recorded against the payment');
      assert.deepEqual(
        added(recorded, await allNotifications()),
        ['unknown null', 'unreadable null', 'unreadable null', 'unreadable null'],
        'the four readable-enough ones were logged as unknown or unreadable; 413 and 404 not at all',
      );
      assert.equal(bankStatus(uid), 'REQUESTED');
      assert.equal(before.status, 'PROCESSING');
      assert.equal(before.resultNotifications, 0);
      assert.equal(before.paymentEntry, false);

      // The real payment still completes: none of the above stood in its way.
      await send(await gw.pay(uid));
      const after = await snapshot(gw, p);
      assert.equal(after.status, 'SUCCESS');
      assert.equal(after.resultNotifications, 1);
      assert.equal(after.paymentEntry, true);
    });

    test("a forged 'PAID' naming a real, unpaid QR costs one inquiry and changes nothing", async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const inquiries = gw.bankCalls(INQUIRY, uid);
      const forgedPaid = await simBody(uid, 'normal');
      assert.equal(JSON.parse(forgedPaid).statusCode, '00');

      assert.deepEqual(JSON.parse((await send(forgedPaid)).body), ENVELOPE);
      assert.equal(gw.bankCalls(INQUIRY, uid), inquiries + 1, 'asked the bank once');
      assert.equal(bankStatus(uid), 'REQUESTED', 'the bank said REQUESTED');
      await assertUnchanged(gw, p, before, 'still PROCESSING, no notification, no ledger posting');
      const [attempt] = await gw.attempts(p);
      assert.deepEqual([attempt!.state, attempt!.checks, attempt!.paidAt], ['requested', 1, null]);
      assert.deepEqual(
        (await notificationsOf(p)).map((n) => n.outcome),
        ['checked'],
      );

      // With another amount in it: one more inquiry, still nothing.
      const wrongAmount = await simBody(uid, 'wrongAmount');
      assert.equal(JSON.parse(wrongAmount).txnAmount, 1001);
      const withTxnNo = JSON.stringify({ ...JSON.parse(wrongAmount), txnNo: '00000000000000000042' });
      await send(withTxnNo);
      assert.equal(gw.bankCalls(INQUIRY, uid), inquiries + 2);
      await assertUnchanged(gw, p, before, 'a wrong amount completes nothing either');
    });

    test('a callback without a transaction number is never taken as a copy: each is checked', async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const inquiries = gw.bankCalls(INQUIRY, uid);
      const { txnNo: _dropped, ...withoutTxnNo } = JSON.parse(await simBody(uid, 'normal')) as Record<string, unknown>;
      for (let i = 0; i < 2; i++) await send(JSON.stringify(withoutTxnNo));
      assert.equal(gw.bankCalls(INQUIRY, uid), inquiries + 2, 'both asked about');
      assert.deepEqual(
        (await notificationsOf(p)).map((n) => n.outcome),
        ['checked', 'checked'],
      );
      await assertUnchanged(gw, p, before, 'the bank said REQUESTED both times');
      // The genuine callback (with its number) still completes the payment.
      await send(await gw.pay(uid));
      assert.equal((await snapshot(gw, p)).status, 'SUCCESS');
    });

    test('the same real callback sent three times completes the payment once', async () => {
      const { p, uid } = await shown();
      const before = await snapshot(gw, p);
      const body = await gw.pay(uid);
      const inquiries = gw.bankCalls(INQUIRY, uid);
      for (let i = 0; i < 3; i++) assert.deepEqual(JSON.parse((await send(body)).body), ENVELOPE);

      const after = await snapshot(gw, p);
      assert.deepEqual(
        [after.status, after.attempts, after.resultNotifications, after.paymentEntry],
        ['SUCCESS', ['1:paid'], 1, true],
      );
      assert.equal(after.ledgerEntries, before.ledgerEntries + 1, 'one journal entry for the payment');
      assert.equal(after.balance > before.balance, true, 'the merchant was credited');
      assert.equal(gw.bankCalls(INQUIRY, uid), inquiries + 1, 'the copies were not even checked');
      assert.deepEqual((await notificationsOf(p)).map((n) => n.outcome).sort(), ['checked', 'duplicate', 'duplicate']);

      // A late copy after completion changes nothing either.
      await send(body);
      await assertUnchanged(gw, p, after, 'a fourth copy');
    });

    describe('over HTTP, as kbank-sim sends them', () => {
      before(async () => {
        // The gateway listens on 127.0.0.1 and kbank-sim posts its callbacks there.
        await gw.app.listen({ host: '127.0.0.1', port: 0 });
        const { port } = gw.app.server.address() as AddressInfo;
        gw.sim.setCallbackUrl(
          gw.sim.credentials.merchantId,
          `http://127.0.0.1:${port}/processor/kbank/notify/${CALLBACK_PATH_TOKEN}`,
        );
      });

      test("kbank-sim's duplicate callback (3 copies): one completion, one notification, one entry", async () => {
        const { p, uid } = await shown();
        const before = await snapshot(gw, p);
        const paid = gw.sim.pay(uid, undefined, { callback: 'duplicate:3' });
        assert.ok(paid.ok);
        const delivery = await paid.callback;
        assert.equal(delivery.outcome, 'delivered');
        assert.equal(delivery.attempts.length, 3, 'three copies reached the gateway');
        await gw.services.processor.reconciler.wake();

        const after = await snapshot(gw, p);
        assert.deepEqual(
          [after.status, after.attempts, after.resultNotifications, after.ledgerEntries - before.ledgerEntries],
          ['SUCCESS', ['1:paid'], 1, 1],
        );
        assert.equal(gw.bankCalls(INQUIRY, uid), 1);
        assert.equal((await notificationsOf(p)).length, 3);
      });

      test('a dropped callback: nothing happens until the reconciler asks, then it completes once', async () => {
        const { p, uid } = await shown();
        const before = await snapshot(gw, p);
        const paid = gw.sim.pay(uid, undefined, { callback: 'drop' });
        assert.ok(paid.ok);
        assert.equal((await paid.callback).outcome, 'dropped');
        await gw.services.processor.reconciler.wake();
        await assertUnchanged(gw, p, before, 'nobody told the gateway; nothing is due yet');
        assert.equal(bankStatus(uid), 'PAID');
        assert.equal(gw.bankCalls(INQUIRY, uid), 0);

        await gw.reconcile();
        const after = await snapshot(gw, p);
        assert.deepEqual(
          [after.status, after.attempts, after.resultNotifications, after.ledgerEntries - before.ledgerEntries],
          ['SUCCESS', ['1:paid'], 1, 1],
        );
        assert.equal(gw.bankCalls(INQUIRY, uid), 1);
        assert.deepEqual(await notificationsOf(p), []);

        await gw.reconcile();
        await assertUnchanged(gw, p, after, 'a paid attempt is not asked about again');
        assert.equal(gw.bankCalls(INQUIRY, uid), 1);
      });

      test("pay()'s callback never sent: the reconciler completes it with one notification", async () => {
        const { p, uid } = await shown();
        gw.sim.setCallbackUrl(gw.sim.credentials.merchantId, null);
        try {
          const before = await snapshot(gw, p);
          await gw.pay(uid);
          await gw.reconcile();
          const after = await snapshot(gw, p);
          assert.deepEqual(
            [after.status, after.resultNotifications, after.ledgerEntries - before.ledgerEntries],
            ['SUCCESS', 1, 1],
          );
        } finally {
          const { port } = gw.app.server.address() as AddressInfo;
          gw.sim.setCallbackUrl(
            gw.sim.credentials.merchantId,
            `http://127.0.0.1:${port}/processor/kbank/notify/${CALLBACK_PATH_TOKEN}`,
          );
        }
      });
    });
  });
}
