// Refunds of KBank payments through the merchant API (POST /transaction/refund), on both stores,
// against kbank-sim (docs/connectors/kbank.md "Refunds", docs/api.md "Refund"). KBank refunds by voiding the whole
// payment on the day it was paid, before the cut-off, while it is not settled. Proves:
//   - a full refund the same day: one void at the bank, the refund notification, the balance back;
//   - outside the window (a part of the payment, after KBANK_VOID_CUTOFF, a later Bangkok day,
//     a payment KBank has settled): REFUND_NOT_ALLOWED with a sentence saying why, the balance and
//     the ledger unchanged; the gateway's own rules send no void, the settled one is refused by
//     the bank (only KBank knows it settled); each refusal names the way that remains, a bank
//     transfer recorded in the console or with `gateway refund record`;
//   - past the window, a bank transfer the gateway's operator sent, recorded
//     (app/record-transfer-refund.ts): no void at KBank, the refund, its ledger entry (payout −
//     amount against operator_adjustment, clearing unchanged: KBank's settlement still holds the
//     payment) and its notification as for a void;
//   - a void KBank applied but never answered: the merchant's retry of the same refund reaches
//     the same void (inquiry first): one void at the bank in all, one refund in the ledger.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import { payoutBalance, type Started } from '../../support/lifecycle.ts';
import { startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';
import { post } from '../../support/test-gateway.ts';
import { CLI_RECORDER } from '../../../src/app/record-transfer-refund.ts';
import { REFUND_BY_TRANSFER_HINT } from '../../../src/domain/transfer-refund.ts';

const VOID = '/v1/qrpayment/void';
const HOUR = 3_600_000;

for (const { dialect, skip } of await testDialects()) {
  describe(`KBank refund windows [${dialect}]`, { skip }, () => {
    // One gateway whose clock only moves forward: the same-day cases first, then the cut-off,
    // then the next day.
    let gw: LiveGateway;
    before(async () => {
      gw = await startLiveGateway(dialect);
    });
    after(async () => {
      await gw?.close();
    });

    test('a full refund the same day: one void at the bank, a refund notification, the balance back', async () => {
      const p = await paidPayment(gw, '1000.00');
      const qr = (await gw.attempts(p))[0]!;
      const before = await ledgerState(gw, p);
      const res = await refund(gw, p, '1000.00');
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.result, 'Success');
      assert.equal(res.body.refunded_amount, '1000.00');
      assert.equal(gw.bankCalls(VOID, qr.reference), 1);
      assert.equal(recordAtBank(gw, qr.reference), 'VOIDED');
      const after = await ledgerState(gw, p);
      assert.equal(after.balance, before.balance - 1000_0000n);
      assert.equal(after.refunds, 1);
      assert.equal(after.refundEntries, before.refundEntries + 1);
      assert.deepEqual(after.refundNotifications, [res.body.refundid]);
      const voids = (await gw.attempts(p)).filter((a) => a.kind === 'void');
      assert.deepEqual(
        voids.map((a) => a.state),
        ['voided'],
      );
    });

    const refused = async (p: Started, amount: string, why: RegExp, voidsAtBank = 0) => {
      const qr = (await gw.attempts(p))[0]!;
      const before = await ledgerState(gw, p);
      const res = await refund(gw, p, amount);
      assert.equal(res.status, 409, res.raw);
      assert.equal(res.body.error_code_tag, 'REFUND_NOT_ALLOWED');
      assert.match(res.body.error_text, /^KBank QR payments can only be refunded in full, on the day of payment/);
      assert.match(res.body.error_text, why);
      assert.ok(res.body.error_text.endsWith(` ${REFUND_BY_TRANSFER_HINT}`), 'names the bank-transfer path');
      assert.equal(gw.bankCalls(VOID, qr.reference), voidsAtBank);
      assert.equal(recordAtBank(gw, qr.reference), 'PAID', 'the payer has not got the money back');
      assert.deepEqual(await ledgerState(gw, p), before, 'balance, refunds and ledger unchanged');
      assert.equal((await gw.transaction(p)).refundedMinor, 0n);
    };

    test('a partial refund: REFUND_NOT_ALLOWED (a void returns the whole payment), no void sent', async () => {
      const p = await paidPayment(gw, '1000.00');
      await refused(p, '400.00', /a void returns the whole 1000\.00 THB, not 400\.00\./);
    });

    test('a payment KBank has settled: REFUND_NOT_ALLOWED, the bank refused the one void (EMSET)', async () => {
      const p = await paidPayment(gw, '700.00');
      const qr = (await gw.attempts(p))[0]!;
      assert.ok(gw.sim.settle().partnerTxnUids.includes(qr.reference));
      // Only KBank knows it settled (its inquiry still says PAID): the void goes out and is refused.
      await refused(p, '700.00', /KBank has already settled this payment/, 1);
    });

    test('after KBANK_VOID_CUTOFF (21:30 by default): REFUND_NOT_ALLOWED, no void sent', async () => {
      // 10:00 → 21:29: paid before the cut-off, refunded after it.
      gw.advance(11 * HOUR + 29 * 60_000);
      const p = await paidPayment(gw, '1000.00');
      gw.advance(2 * 60_000);
      await refused(p, '1000.00', /it is past 21:30 today\./);
    });

    test('on a later Bangkok day: REFUND_NOT_ALLOWED, no void sent', async () => {
      const p = await paidPayment(gw, '1000.00'); // 21:31 on 5 January
      gw.advance(3 * HOUR); // 00:31 on 6 January
      await refused(p, '1000.00', /this payment was paid on 2026-01-05, not today\./);
      laterDay = p;
    });

    let laterDay: Started | undefined;
    test('past the window, the bank transfer recorded: no void at KBank; refund, ledger and notification', async () => {
      const p = laterDay!;
      const qr = (await gw.attempts(p))[0]!;
      const attemptsBefore = await gw.attempts(p);
      const before = await ledgerState(gw, p);
      const recorded = await gw.services.recordTransfer.record({
        merchantId: gw.creds.merchantid,
        transactionId: p.transactionid,
        amount: '400.00',
        transferReference: 'KB260106X01',
        paidBy: 'gateway',
        reason: 'paid back by transfer',
        by: CLI_RECORDER,
      });
      assert.equal(recorded.response.refundable_amount, '600.00', 'a part, which a void could not do');
      assert.equal(gw.bankCalls(VOID, qr.reference), 0, 'KBank is not asked');
      assert.equal(recordAtBank(gw, qr.reference), 'PAID');
      const after = await ledgerState(gw, p);
      assert.equal(after.balance, before.balance - 400_0000n);
      assert.equal(after.clearing, before.clearing, 'clearing still matches what KBank settles');
      assert.deepEqual([after.refunds, after.refundEntries - before.refundEntries], [1, 1]);
      assert.deepEqual(after.refundNotifications, [recorded.refund.id]);
      assert.deepEqual(
        [recorded.refund.processor, recorded.refund.processorReference],
        ['bank_transfer', 'KB260106X01'],
      );
      assert.deepEqual(await gw.attempts(p), attemptsBefore, 'no attempt written at the processor');
    });
  });

  describe(`KBank void applied but never answered [${dialect}]`, { skip }, () => {
    // A gateway of its own per case: its reconciler must not take the inquiry faults queued here.
    let gw: LiveGateway;
    afterEach(async () => {
      await gw?.close();
    });

    test('the answer times out, the inquiry after it finds the void: refunded once, retry replays', async () => {
      gw = await startLiveGateway(dialect);
      const p = await paidPayment(gw, '1000.00');
      const qr = (await gw.attempts(p))[0]!;
      const before = await ledgerState(gw, p);
      gw.sim.faults({ endpoint: 'void', fault: 'timeout' });
      const first = await refund(gw, p, '1000.00');
      assert.equal(first.status, 200, first.raw);
      const again = await refund(gw, p, '1000.00');
      assert.equal(again.status, 200, again.raw);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.refundid, first.body.refundid);
      assert.equal(gw.bankCalls(VOID, qr.reference), 1);
      const after = await ledgerState(gw, p);
      assert.equal(after.balance, before.balance - 1000_0000n);
      assert.deepEqual([after.refunds, after.refundNotifications.length], [1, 1]);
    });

    for (const retryAfter of ['at once', 'the reconciler saw the void'] as const) {
      test(`void and the inquiry after it unanswered: 503; the retry (${retryAfter}) finds the same void`, async () => {
        gw = await startLiveGateway(dialect);
        const p = await paidPayment(gw, '1000.00');
        const qr = (await gw.attempts(p))[0]!;
        const before = await ledgerState(gw, p);
        // The refund's inquiry first is answered; its void is applied and never answered; so is
        // the inquiry that would have told.
        gw.sim.faults([
          { endpoint: 'void', fault: 'timeout' },
          { endpoint: 'inquiry', fault: 'latency:0' },
          { endpoint: 'inquiry', fault: 'timeout' },
        ]);
        const first = await refund(gw, p, '1000.00');
        assert.equal(first.status, 503, first.raw);
        assert.equal(first.body.error_code_tag, 'SERVICE_UNAVAILABLE');
        // The inquiry's own failure is what the merchant reads: the bank did not answer (a 503,
        // which docs/api.md says is safe to send again).
        assert.match(first.body.error_text, /KBank inquiry: no answer within 1000 ms/);
        assert.equal(recordAtBank(gw, qr.reference), 'VOIDED', 'KBank applied it');
        assert.deepEqual(await ledgerState(gw, p), before, 'nothing recorded yet');
        const pending = (await gw.attempts(p)).filter((a) => a.kind === 'void');
        assert.deepEqual(
          pending.map((a) => a.state),
          ['pending'],
        );

        if (retryAfter === 'the reconciler saw the void') {
          gw.advance(3 * 60_000); // the pending void is checked once its request surely ended
          await gw.reconcile();
          const checked = (await gw.attempts(p)).filter((a) => a.kind === 'void');
          assert.equal(checked[0]?.state, 'voided');
          assert.deepEqual(await openAttention(gw, p), ['void_unknown'], 'voided without a refund: a person is told');
        }

        const retry = await refund(gw, p, '1000.00');
        assert.equal(retry.status, 200, retry.raw);
        assert.equal(retry.body.refunded_amount, '1000.00');
        assert.equal(gw.bankCalls(VOID, qr.reference), 1, 'the retry found the void; none sent again');
        const after = await ledgerState(gw, p);
        assert.equal(after.balance, before.balance - 1000_0000n);
        assert.deepEqual([after.refunds, after.refundEntries - before.refundEntries], [1, 1]);
        assert.deepEqual(after.refundNotifications, [retry.body.refundid]);
        const voids = (await gw.attempts(p)).filter((a) => a.kind === 'void');
        assert.deepEqual(
          voids.map((a) => a.state),
          ['voided'],
        );
      });
    }
  });
}

/** A payment paid at KBank and completed by its callback. */
async function paidPayment(gw: LiveGateway, amount: string): Promise<Started> {
  const p = await gw.start({ bill_amount: amount });
  const qr = await gw.showQr(p);
  assert.equal((await gw.callback(await gw.pay(qr.reference))).status, 200);
  await gw.reconcile();
  assert.equal((await gw.transaction(p)).status, 'SUCCESS');
  return p;
}

/** The merchant's refund, as the WooCommerce plugin sends it (no idempotency key: the content is the key). */
function refund(gw: LiveGateway, p: Started, amount: string) {
  return post(gw, '/transaction/refund', {
    merchantid: gw.creds.merchantid,
    password: gw.creds.password,
    transactionid: p.transactionid,
    bill_amount: amount,
    bill_currencycode: 'THB',
  });
}

function recordAtBank(gw: LiveGateway, reference: string): string | undefined {
  return gw.sim.state().records.find((r) => r.partnerTxnUid === reference)?.status;
}

/** The merchant's balance, the payment's refunds, all refund journal entries, the refund notifications. */
async function ledgerState(gw: LiveGateway, p: Started) {
  const db = gw.testStore.db;
  const refunds = await db.selectFrom('refunds').select('id').where('transaction_id', '=', p.transactionid).execute();
  const entries = await db.selectFrom('journal_entries').select('id').where('kind', '=', 'refund').execute();
  const notifications = await db
    .selectFrom('outbox_events')
    .select('refund_id')
    .where('transaction_id', '=', p.transactionid)
    .where('refund_id', 'is not', null)
    .execute();
  return {
    balance: await payoutBalance(gw, gw.creds.merchantid),
    clearing: await gw.services.ledger.balance({ kind: 'gateway_clearing', merchantId: null, currency: 'THB' }),
    refunds: refunds.length,
    refundEntries: entries.length,
    refundNotifications: notifications.map((n) => n.refund_id),
  };
}

async function openAttention(gw: LiveGateway, p: Started): Promise<string[]> {
  const rows = await gw.testStore.db
    .selectFrom('attention_items')
    .select(['kind'])
    .where('transaction_id', '=', p.transactionid)
    .where('resolved_at', 'is', null)
    .execute();
  return rows.map((r) => r.kind);
}
