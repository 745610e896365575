// Live-mode lifecycle edges against kbank-sim, on both stores: where the customer, the bank and
// the gateway's deadline meet (docs/connectors/kbank.md "Lifecycle", "The QR"). Proves, with the
// real gateway and the real simulator:
//   - the customer's Cancel on the hosted page (GET the page, which creates the QR, then POST the
//     form with its CSRF cookie and token) closes the QR at the bank first: unpaid, the payment
//     ends FAILED/CANCELLED; paid at the bank first, the bank's cancel answers paid and it ends
//     SUCCESS, the customer sent back with CAPTURED;
//   - a QR paid just before the deadline (or paid, then learnt of after it) is never EXPIRED, by
//     the sweeper or by the hosted page's lazy expiry; an unpaid one is cancelled at the bank first;
//   - with the bank down at expiry the payment stays PROCESSING past its deadline, and the next
//     sweep after the bank is back ends it (expired, or paid if the customer paid meanwhile);
//   - a create the bank applied but never answered leaves a pending attempt that is settled by
//     inquiry: the unseen QR is cancelled at the bank, a second one is created, only it can be paid.
// Each ending is checked in the payment's row, its transitions, the outbox (one notification)
// and the merchant's balance, and in the requests that reached the bank.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExpirySweeper } from '../../../src/app/expiry-sweeper.ts';
import { testDialects } from '../../support/dialects.ts';
import { formSecrets, get, postForm } from '../../support/hosted-page-form.ts';
import { payoutBalance, snapshot, type Started } from '../../support/lifecycle.ts';
import { expirySweeperOf, startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';

const MINUTE = 60_000;
const TTL = 10 * MINUTE; // TRANSACTION_TTL of the live gateway (live-gateway.ts), KBank's QR lives as long
const CANCEL = '/v1/qrpayment/cancel';
const CREATE = '/v1/qrpayment/request';

for (const { dialect, skip } of await testDialects()) {
  describe(`KBank lifecycle edges [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    let sweeper: ExpirySweeper;

    before(async () => {
      gw = await startLiveGateway(dialect);
      sweeper = expirySweeperOf(gw);
    });
    afterEach(() => gw.sim.clearFaults());
    after(async () => {
      await gw?.close();
    });

    /** The payment's notifications in the outbox (result and refund events). */
    const notifications = async (p: Started) =>
      (await snapshot(gw, p.transactionid)).outbox.map((o) => JSON.parse(o.payload) as Record<string, unknown>);
    const balance = () => payoutBalance(gw, gw.creds.merchantid);
    /** GET /transaction/Redirect: the hosted page's view, which expires a payment past its deadline. */
    const view = async (p: Started) => {
      const res = await gw.app.inject({ method: 'GET', url: `/transaction/Redirect?ID=${p.redirectId}` });
      assert.equal(res.statusCode, 200, res.body);
    };
    const assertSuccessOnce = async (p: Started, credited: bigint, before: bigint) => {
      const snap = await snapshot(gw, p.transactionid);
      assert.equal(snap.status, 'SUCCESS');
      assert.deepEqual(
        snap.transitions.map((t) => [t.toStatus, t.cause]),
        [['SUCCESS', 'processor_paid']],
      );
      assert.equal(snap.outbox.length, 1, 'one result notification');
      assert.equal(snap.entries.length, 1, 'one ledger entry');
      assert.equal((await balance()) - before, credited);
    };

    test('Cancel after paying at the bank (no callback yet): SUCCESS, one notification, credited', async () => {
      const p = await gw.start({ bill_amount: '1000.00' });
      // The customer's first view creates the bank's QR; the page carries the Cancel form.
      const page = await get(gw, `/transaction/Redirect?ID=${p.redirectId}`);
      assert.equal(page.status, 200, page.body);
      const { cookie, csrf } = formSecrets(page);
      const [qr, ...more] = await gw.attempts(p);
      assert.deepEqual([qr?.state, more.length], ['requested', 0], 'the view made one QR');
      assert.equal(gw.bankCalls(CREATE, qr!.reference), 1);
      const before = await balance();
      const callback = await gw.pay(qr!.reference); // paid at KBank; its callback is held back
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');

      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303, res.body);
      // The bank answered paid: the customer paid, so it is not cancelled; the shop hears CAPTURED.
      assert.match(String(res.headers.location), /result=CAPTURED/);
      assert.doesNotMatch(String(res.headers.location), /Not%20Successful/);
      assert.equal(gw.bankCalls(CANCEL, qr!.reference), 1);
      await assertSuccessOnce(p, await netOf(gw, p), before);
      assert.equal((await notifications(p))[0]?.result, 'CAPTURED');
      assert.equal((await gw.attempts(p))[0]?.state, 'paid');

      // KBank's callback arriving now changes nothing: still one notification and one credit.
      assert.equal((await gw.callback(callback)).status, 200);
      await gw.reconcile();
      await assertSuccessOnce(p, await netOf(gw, p), before);
    });

    test('Cancel of an unpaid QR: closed at the bank, FAILED/CANCELLED, one notification, no credit', async () => {
      const p = await gw.start();
      const page = await get(gw, `/transaction/Redirect?ID=${p.redirectId}`);
      assert.equal(page.status, 200, page.body);
      const { cookie, csrf } = formSecrets(page);
      const [qr, ...more] = await gw.attempts(p);
      assert.deepEqual([qr?.state, more.length], ['requested', 0], 'the view made one QR');
      const before = await balance();

      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303, res.body);
      assert.match(String(res.headers.location), /result=Not%20Successful&responsecode=6/);
      assert.equal(gw.bankCalls(CANCEL, qr!.reference), 1);
      assert.equal((await gw.attempts(p))[0]?.state, 'cancelled');
      const snap = await snapshot(gw, p.transactionid);
      assert.equal(snap.status, 'FAILED');
      assert.equal((await gw.transaction(p)).errorCodeTag, 'CANCELLED');
      assert.deepEqual(
        snap.transitions.map((t) => [t.toStatus, t.cause]),
        [['FAILED', 'cancel']],
      );
      assert.equal(snap.outbox.length, 1, 'one result notification');
      assert.equal(await balance(), before, 'nothing credited');
      assert.equal(gw.sim.pay(qr!.reference).ok, false, 'the closed QR can no longer be paid');
    });

    test('paid just before the deadline: the sweeper does not expire it, it ends SUCCESS', async () => {
      const p = await gw.start();
      const qr = await gw.showQr(p);
      const before = await balance();
      gw.advance(TTL - 5_000);
      await gw.pay(qr.reference); // 5 s before the deadline; the callback is lost
      gw.advance(10_000);
      const swept = await sweeper.sweepOnce();
      assert.deepEqual(swept, { expired: 0, alreadyFinal: 1, failed: 0 });
      assert.equal(gw.bankCalls(CANCEL, qr.reference), 1, 'asked the bank to close it first');
      await assertSuccessOnce(p, await netOf(gw, p), before);
    });

    test("paid just before the deadline: the hosted page's lazy expiry does not expire it either", async () => {
      const p = await gw.start();
      const qr = await gw.showQr(p);
      const before = await balance();
      gw.advance(TTL - 1_000);
      await gw.pay(qr.reference);
      gw.advance(2_000);
      await view(p);
      assert.equal(gw.bankCalls(CANCEL, qr.reference), 1);
      await assertSuccessOnce(p, await netOf(gw, p), before);
    });

    test('paid before the deadline, PAID learnt only after it while PROCESSING: SUCCESS', async () => {
      const p = await gw.start();
      const qr = await gw.showQr(p);
      const before = await balance();
      gw.advance(TTL - 30_000);
      const callback = await gw.pay(qr.reference);
      // The bank is down when the deadline passes: the sweep cannot close it, so it waits.
      gw.advance(60_000);
      gw.sim.faults({ endpoint: 'cancel', fault: 'http500', count: 5 });
      assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 0, failed: 0 });
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
      // KBank's late callback: the gateway asks, learns PAID past its own deadline, and completes.
      assert.equal((await gw.callback(callback)).status, 200);
      await gw.reconcile();
      await assertSuccessOnce(p, await netOf(gw, p), before);
      gw.sim.clearFaults();
      assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 0, failed: 0 });
    });

    test('an unpaid QR at the deadline: cancelled at the bank first, then EXPIRED, nothing credited', async () => {
      const p = await gw.start();
      // The first view two minutes in: KBank's QR outlives the payment's deadline, so it is still
      // open at KBank when the payment expires, and only the gateway's cancel closes it.
      gw.advance(2 * MINUTE);
      const qr = await gw.showQr(p);
      const before = await balance();
      gw.advance(TTL - 2 * MINUTE - 1_000);
      assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 0, failed: 0 }, 'not yet due');
      gw.advance(2_000);
      const swept = await sweeper.sweepOnce();
      assert.equal(swept.expired >= 1, true, JSON.stringify(swept));
      assert.equal(gw.bankCalls(CANCEL, qr.reference), 1);
      await assertExpiredOnce(p);
      assert.equal(await balance(), before);
      assert.equal((await gw.attempts(p))[0]?.state, 'cancelled');
      const paid = gw.sim.pay(qr.reference);
      assert.equal(paid.ok, false, 'nobody can pay an expired payment’s QR');
    });

    /** FAILED by expiry, once, with one notification. */
    const assertExpiredOnce = async (p: Started) => {
      const snap = await snapshot(gw, p.transactionid);
      assert.equal(snap.status, 'FAILED');
      assert.deepEqual(
        snap.transitions.map((t) => t.cause),
        ['expire'],
      );
      assert.equal(snap.outbox.length, 1);
    };

    for (const fault of ['http500', 'timeout'] as const) {
      test(`bank down at expiry (${fault} on cancel): PROCESSING past the deadline, expired once back`, async () => {
        const p = await gw.start();
        const qr = await gw.showQr(p);
        gw.advance(TTL + 1_000);
        gw.sim.faults({ endpoint: 'cancel', fault, count: 2 });
        assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 0, failed: 0 });
        await view(p); // the page's lazy expiry meets the same bank
        assert.equal((await gw.transaction(p)).status, 'PROCESSING', 'never expired blind');
        assert.equal(gw.bankCalls(CANCEL, qr.reference), 2);
        assert.equal((await snapshot(gw, p.transactionid)).outbox.length, 0);

        gw.sim.clearFaults();
        const swept = await sweeper.sweepOnce();
        assert.equal(swept.expired >= 1, true, JSON.stringify(swept));
        assert.equal(gw.bankCalls(CANCEL, qr.reference), 3);
        await assertExpiredOnce(p);
      });
    }

    test('bank down at expiry, the customer pays meanwhile: the next sweep completes it SUCCESS', async () => {
      const p = await gw.start();
      const qr = await gw.showQr(p);
      const before = await balance();
      gw.advance(TTL - 10_000);
      await gw.pay(qr.reference); // before KBank's own QR deadline; callback lost
      gw.advance(11_000);
      gw.sim.faults({ endpoint: 'cancel', fault: 'http500' });
      assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 0, failed: 0 });
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
      gw.sim.clearFaults();
      assert.deepEqual(await sweeper.sweepOnce(), { expired: 0, alreadyFinal: 1, failed: 0 });
      await assertSuccessOnce(p, await netOf(gw, p), before);
    });

    for (const settleBy of ['the next view', 'the reconciler'] as const) {
      test(`create applied, never answered: settled by ${settleBy}; unseen QR cancelled, one payable`, async () => {
        const p = await gw.start();
        gw.sim.faults({ endpoint: 'request', fault: 'timeout' });
        await assert.rejects(gw.showQr(p), /no answer within 1000 ms/);
        const [first] = await gw.attempts(p);
        assert.equal(first?.state, 'pending', 'the create may have happened: pending, not failed');
        assert.equal(first?.qrPayload, null);
        assert.equal(gw.bankCalls(CREATE, first!.reference), 1);

        if (settleBy === 'the reconciler') {
          await gw.reconcile();
          assert.equal((await gw.attempts(p))[0]?.state, 'cancelled');
        }
        const second = await gw.showQr(p);
        assert.notEqual(second.reference, first!.reference);
        assert.equal(second.state, 'requested');
        assert.ok(second.qrPayload);
        const attempts = await gw.attempts(p);
        assert.deepEqual(
          attempts.map((a) => [a.attempt, a.state]),
          [
            [1, 'cancelled'],
            [2, 'requested'],
          ],
        );
        assert.equal(gw.bankCalls(CANCEL, first!.reference), 1, 'the unseen QR was closed at the bank');
        assert.deepEqual([gw.bankCalls(CREATE, first!.reference), gw.bankCalls(CREATE, second.reference)], [1, 1]);
        // The customer sees one QR, the same on every view; the first cannot be paid.
        assert.equal((await gw.showQr(p)).reference, second.reference);
        const old = gw.sim.pay(first!.reference);
        assert.equal(old.ok, false);
        const before = await balance();
        await gw.pay(second.reference);
        await gw.reconcile();
        await assertSuccessOnce(p, await netOf(gw, p), before);
      });
    }
  });
}

/** What the merchant is credited for a payment: its amount (the test merchant pays no fee). */
async function netOf(gw: LiveGateway, p: Started): Promise<bigint> {
  return (await gw.transaction(p)).amountMinor;
}
