// A live payment through SCB against scb-sim, on both stores (docs/connectors/scb.md "Lifecycle",
// "The QR"), where SCB differs from KBank: no cancel (expiry and Cancel close on our side, the QR
// stays payable at SCB until its own expiry), no refunds, payments found by inquiry only.
//   - the bank down at the first view: the page says so with "Try again", nothing completes; once
//     SCB answers, the next view shows one payable QR;
//   - SCB's token expired mid-run (9300): one new token, the payment completes once;
//   - the customer's Cancel ends the payment at once with no call that cannot exist; a payment on
//     the QR afterwards goes on the needs-attention list, the payment stays FAILED;
//   - paid just before the deadline: the sweep asks SCB first and the payment ends SUCCESS;
//   - SCB down at the deadline: the payment expires all the same (waiting would close nothing);
//   - one QR paid twice: SUCCESS once, the second payment on the needs-attention list;
//   - a create SCB applied but never answered: the unseen QR is kept and checked until it expires,
//     the next view shows a second QR, only that one was shown;
//   - a refund is refused with the bank-transfer sentence, and nothing moves.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExpirySweeper } from '../../../src/app/expiry-sweeper.ts';
import { testDialects } from '../../support/dialects.ts';
import { formSecrets, get, postForm } from '../../support/hosted-page-form.ts';
import type { Started } from '../../support/lifecycle.ts';
import { expirySweeperOf, startLiveScbGateway, type LiveScbGateway } from '../../support/live-gateway.ts';
import { assertUnchanged, snapshot } from '../../support/live-observe.ts';
import { post } from '../../support/test-gateway.ts';

const MINUTE = 60_000;
const TTL = 10 * MINUTE; // TRANSACTION_TTL and SCB_QR_TTL of the live gateway (live-gateway.ts)
const CREATE = '/v2/payment/qrcode/create';
const INQUIRY = '/billpayment/inquiry';
const TOKEN = '/v1/oauth/token';

for (const { dialect, skip } of await testDialects()) {
  describe(`SCB live lifecycle [${dialect}]`, { skip }, () => {
    let gw: LiveScbGateway;
    let sweeper: ExpirySweeper;

    before(async () => {
      gw = await startLiveScbGateway(dialect);
      sweeper = expirySweeperOf(gw);
    });
    afterEach(() => gw.sim.clearFaults());
    after(async () => {
      await gw?.close();
    });

    const page = (p: Started) => get(gw, `/transaction/Redirect?ID=${p.redirectId}&lang=en`);
    const attention = (p: Started) => gw.services.store.attention.forTransaction(p.transactionid);
    const send = async (body: string) => {
      assert.equal((await gw.confirm(body)).status, 200);
      await gw.services.processor.reconciler.wake();
    };
    const completedOnce = async (p: Started, before: { ledgerEntries: number }) => {
      const after = await snapshot(gw, p);
      assert.deepEqual(
        [after.status, after.resultNotifications, after.paymentEntry, after.ledgerEntries - before.ledgerEntries],
        ['SUCCESS', 1, true, 1],
      );
    };

    test("SCB down at the first view: the page's 'try again', nothing completed; then one payable QR", async () => {
      const p = await gw.start();
      const before = await snapshot(gw, p);
      gw.sim.faults({ endpoint: 'createV2', fault: 'http500', count: 5 });
      const down = await page(p);
      assert.equal(down.status, 503, 'the page as docs/hosted-page.md "Live mode" shows it');
      assert.match(down.body, /The bank is not answering right now/);
      assert.match(down.body, /Try again/);
      assert.doesNotMatch(down.body, /QR issued by/);
      await assertUnchanged(gw, p, { ...before, attempts: (await snapshot(gw, p)).attempts }, 'nothing completed');
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');

      gw.sim.clearFaults();
      const up = await page(p);
      assert.match(up.body, /QR issued by SCB/);
      const shown = (await gw.attempts(p)).filter((a) => a.qrPayload !== null);
      assert.equal(shown.length, 1, 'one QR was ever shown');
      const body = await gw.pay(shown[0]!.reference);
      await send(body);
      await completedOnce(p, before);
    });

    test("SCB's token expired mid-run (9300): one new token, the inquiry again, completed once", async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      const tokens = gw.bankCalls(TOKEN);
      const body = await gw.pay(uid);
      gw.sim.expireTokens();
      const from = gw.sim.log().requests.length;
      await send(body);
      await completedOnce(p, before);
      assert.equal(gw.bankCalls(TOKEN), tokens + 1, 'the token endpoint was called again, once');
      // The first inquiry after the expiry is refused (9300), and only it: each later one has the new token.
      const inquiries = gw.sim
        .log()
        .requests.slice(from)
        .filter((r) => r.path.endsWith(INQUIRY))
        .map((r) => r.answer?.status);
      assert.deepEqual([inquiries[0], inquiries.filter((s) => s === 401).length], [401, 1], String(inquiries));
      assert.ok(inquiries.length >= 2 && inquiries.slice(1).every((s) => s === 200), String(inquiries));
    });

    test('Cancel ends the payment at once; a payment on the still-live QR afterwards needs a person', async () => {
      const p = await gw.start();
      const shown = await get(gw, `/transaction/Redirect?ID=${p.redirectId}`);
      const { cookie, csrf } = formSecrets(shown);
      const [qr] = await gw.attempts(p);
      const calls = gw.sim.log().requests.length;
      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303, res.body);
      assert.match(String(res.headers.location), /result=Not%20Successful&responsecode=6/);
      const ended = await snapshot(gw, p);
      assert.deepEqual([ended.status, ended.resultNotifications, ended.paymentEntry], ['FAILED', 1, false]);
      const asked = gw.sim.log().requests.slice(calls);
      assert.ok(
        asked.every((r) => r.path.endsWith(INQUIRY)),
        'SCB was only asked whether it was paid: there is no cancel to call',
      );
      assert.equal((await gw.attempts(p))[0]?.state, 'requested', 'still checked: SCB may still take money on it');

      gw.advance(MINUTE);
      const body = await gw.pay(qr!.reference); // the QR is still payable at SCB
      await send(body);
      const after = await snapshot(gw, p);
      assert.deepEqual([after.status, after.resultNotifications, after.paymentEntry], ['FAILED', 1, false]);
      const [item] = await attention(p);
      assert.equal(item?.kind, 'paid_after_final');
      assert.match(item?.detail ?? '', /cannot void it: transfer it back/);
      assert.equal(item?.amountMinor, 10_000_000n);
      assert.equal((await gw.attempts(p))[0]?.state, 'paid');
    });

    test('paid just before the deadline: the sweep asks SCB first, and it ends SUCCESS', async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      gw.advance(TTL - 5_000);
      await gw.pay(uid, { confirmation: 'drop' });
      gw.advance(10_000);
      const swept = await sweeper.sweepOnce();
      assert.ok(swept.alreadyFinal >= 1 && swept.failed === 0, JSON.stringify(swept));
      await completedOnce(p, before);
    });

    test('SCB down at the deadline: the payment expires all the same, and stays checked', async () => {
      const { p, uid } = await gw.startShown();
      gw.advance(TTL + 1_000);
      gw.sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 50 });
      const swept = await sweeper.sweepOnce();
      assert.ok(swept.expired >= 1, JSON.stringify(swept));
      const after = await snapshot(gw, p);
      assert.deepEqual([after.status, after.resultNotifications], ['FAILED', 1]);
      assert.equal((await gw.transaction(p)).errorCodeTag, 'EXPIRED');
      gw.sim.clearFaults();
      // SCB's own expiry passed with ours: nobody can pay it there, and the reconciler closes it.
      assert.equal(gw.sim.pay({ ref1: uid }).ok, false);
      gw.advance(2 * MINUTE);
      await gw.reconcile();
      assert.equal((await gw.attempts(p))[0]?.state, 'expired');
    });

    test('one QR paid twice: SUCCESS once, the second payment on the needs-attention list', async () => {
      const { p, uid } = await gw.startShown();
      const before = await snapshot(gw, p);
      // A second QR with the same ref1 (SCB documents no idempotency; v1 has no use limit).
      await createV1(gw, uid, '1000.00');
      await gw.pay(uid, { confirmation: 'drop' });
      await gw.pay(uid, { confirmation: 'drop' });
      await gw.reconcile();
      await completedOnce(p, before);
      const items = await attention(p);
      assert.deepEqual(
        items.map((i) => [i.kind, i.amountMinor]),
        [['paid_twice', 10_000_000n]],
      );
      assert.match(items[0]!.detail, /paid 2 times/);
    });

    test('an unanswered create: kept unseen, checked until it expires; the next view shows another', async () => {
      const p = await gw.start();
      gw.sim.faults({ endpoint: 'createV2', fault: 'timeout' });
      const first = await page(p);
      assert.equal(first.status, 503);
      assert.match(first.body, /The bank is not answering right now/);
      const [held] = await gw.attempts(p);
      assert.equal(held?.state, 'pending');
      assert.equal(gw.bankCalls(CREATE, held!.reference), 1, 'SCB made it');

      const second = await page(p);
      assert.match(second.body, /QR issued by SCB/);
      const rows = (await gw.attempts(p)).map((a) => [a.attempt, a.state, a.qrPayload !== null]);
      assert.deepEqual(rows, [
        [1, 'requested', false],
        [2, 'requested', true],
      ]);
      assert.equal(gw.bankCalls(CREATE, held!.reference), 1, 'never sent again');
      gw.advance(TTL + 2 * MINUTE);
      await gw.reconcile();
      assert.equal((await gw.attempts(p))[0]?.state, 'expired', 'the unseen one: expired at SCB, checks stop');
    });

    test("a refund is refused with SCB's bank-transfer sentence; nothing moves", async () => {
      const { p, uid } = await gw.startShown();
      await send(await gw.pay(uid));
      const before = await snapshot(gw, p);
      const refused = await post(gw, '/transaction/refund', {
        merchantid: gw.creds.merchantid,
        password: gw.creds.password,
        transactionid: p.transactionid,
        bill_amount: '1000.00',
        bill_currencycode: 'THB',
      });
      assert.notEqual(refused.status, 200);
      assert.equal(refused.body.error_code_tag, 'REFUND_NOT_ALLOWED');
      assert.match(refused.body.error_text, /\(scb\) cannot make refunds through its API.*gateway refund record/);
      await assertUnchanged(gw, p, before, 'no refund recorded, no ledger posting');
    });
  });
}

/** A v1 QR at the simulator (no use limit, no expiry) with the given ref1, as SCB allows. */
async function createV1(gw: LiveScbGateway, ref1: string, amount: string): Promise<void> {
  const { apiKey, apiSecret, billerId, ref3Prefix } = gw.sim.credentials;
  const headers = { 'content-type': 'application/json', resourceOwnerId: apiKey, requestUId: 'B'.repeat(32) };
  const token = await fetch(`${gw.sim.baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ applicationKey: apiKey, applicationSecret: apiSecret }),
  });
  const { data } = (await token.json()) as { data: { accessToken: string } };
  const created = await fetch(`${gw.sim.baseUrl}/v1/payment/qrcode/create`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${data.accessToken}` },
    body: JSON.stringify({
      qrType: 'PP',
      ppType: 'BILLERID',
      ppId: billerId,
      amount,
      ref1,
      ref2: 'X',
      ref3: ref3Prefix,
    }),
  });
  assert.equal(created.status, 200, await created.text());
}
