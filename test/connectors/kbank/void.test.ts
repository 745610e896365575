// A KBank refund is a void, sent at most once per refund however often the merchant retries and
// whatever the network does (connectors/kbank/connector.ts): inquiry first, a deterministic void
// id per refund and attempt, an unknown outcome settled by inquiry. Real HTTP against kbank-sim.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RefundRequest } from '../../../src/app/ports/processor.ts';
import { GatewayError } from '../../../src/domain/errors.ts';
import { ProcessorUnavailable } from '../../../src/domain/processor-errors.ts';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { CONTRACT_DAY, kbankConnectorFor } from '../../support/connector-harnesses.ts';

const AMOUNT = 2_500_000n; // 250.00 THB
let serial = 0;

describe('KBank refunds are voids, sent once', () => {
  let sim: KbankSim;
  let connector: ReturnType<typeof kbankConnectorFor>;
  before(async () => {
    sim = await startKbankSim({ now: CONTRACT_DAY });
    // Long enough for a loaded machine, short enough for the tests of a void never answered.
    connector = kbankConnectorFor(sim, { timeoutMs: 1000 });
  });
  after(async () => {
    connector?.close();
    await sim?.close();
  });

  /** A QR paid at 10:00 on the contract's day. */
  async function paidQr(): Promise<string> {
    sim.setClock(CONTRACT_DAY);
    sim.clearFaults();
    const transactionId = `0199c0de-0000-7000-8000-${String(++serial).padStart(12, '0')}`;
    const attemptId = connector.attemptReference('qr', `${transactionId}:1`);
    await connector.createPayment({
      transactionId,
      merchantId: 'M1',
      amountMinor: AMOUNT,
      currency: 'THB',
      reference1: 'REF1',
      attemptId,
    });
    assert.ok(sim.pay(attemptId).ok);
    return attemptId;
  }

  function refundOf(reference: string): RefundRequest {
    return {
      refundId: `rfd_void_${++serial}`,
      transactionId: 'tx',
      merchantId: 'M1',
      amountMinor: AMOUNT,
      currency: 'THB',
      reason: null,
      paymentAmountMinor: AMOUNT,
      refundedMinor: 0n,
      paidAt: CONTRACT_DAY,
      paymentReference: reference,
    };
  }

  const voidsOf = (reference: string) =>
    sim
      .log()
      .requests.filter(
        (r) =>
          r.path === '/v1/qrpayment/void' && (r.body as { origPartnerTxnUid?: string }).origPartnerTxnUid === reference,
      );
  const statusOf = (reference: string) => sim.state().records.find((r) => r.partnerTxnUid === reference)?.status;

  test("the void's id is derived from the refund: V and 14 characters, the port's attemptReference", async () => {
    const reference = await paidQr();
    const request = refundOf(reference);
    await connector.refund(request);
    const [sent] = voidsOf(reference);
    assert.equal(
      (sent!.body as { partnerTxnUid: string }).partnerTxnUid,
      connector.attemptReference('void', `${request.refundId}:1`),
    );
    assert.match((sent!.body as { partnerTxnUid: string }).partnerTxnUid, /^V[0-9A-Z]{14}$/);
  });

  test('the same refund twice: one void at KBank, the same answer twice', async () => {
    const reference = await paidQr();
    const request = refundOf(reference);
    const first = await connector.refund(request);
    const second = await connector.refund(request);
    assert.deepEqual(second, first);
    assert.ok(first.reference, "KBank's txnNo");
    assert.equal(voidsOf(reference).length, 1);
    assert.equal(statusOf(reference), 'VOIDED');
  });

  test('a void never answered: the inquiry after it finds it VOIDED, and nothing is voided again', async () => {
    const reference = await paidQr();
    sim.faults({ endpoint: 'void', fault: 'timeout' });
    const accepted = await connector.refund(refundOf(reference));
    assert.ok(accepted.reference);
    assert.equal(voidsOf(reference).length, 1);
    assert.equal(statusOf(reference), 'VOIDED');
  });

  test("and when the inquiry fails too: unavailable; the merchant's retry finds the void and sends none", async () => {
    const reference = await paidQr();
    const request = refundOf(reference);
    sim.faults({ endpoint: 'void', fault: 'timeout' });
    const pending = connector.refund(request);
    // Once the void is on its way (held unanswered), every try of the follow-up inquiry fails.
    await waitFor(() => voidsOf(reference).length === 1);
    sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 3 });
    await assert.rejects(pending, (error: unknown) => error instanceof ProcessorUnavailable);
    assert.equal(statusOf(reference), 'VOIDED', 'KBank applied it');
    sim.clearFaults();
    const retried = await connector.refund(request);
    assert.ok(retried.reference);
    assert.equal(voidsOf(reference).length, 1, 'no second void');
  });

  test('a void refused with HTTP 500 (not applied): the inquiry says PAID, so the second attempt voids', async () => {
    const reference = await paidQr();
    const request = refundOf(reference);
    sim.faults({ endpoint: 'void', fault: 'http500' });
    const accepted = await connector.refund(request);
    assert.ok(accepted.reference);
    const sent = voidsOf(reference).map((r) => (r.body as { partnerTxnUid: string }).partnerTxnUid);
    assert.deepEqual(sent, [
      connector.attemptReference('void', `${request.refundId}:1`),
      connector.attemptReference('void', `${request.refundId}:2`),
    ]);
    assert.equal(statusOf(reference), 'VOIDED');
  });

  test('a settled payment: REFUND_NOT_ALLOWED saying KBank settled it, still paid at KBank', async () => {
    const reference = await paidQr();
    sim.settle();
    await assert.rejects(connector.refund(refundOf(reference)), (error: unknown) => {
      assert.ok(error instanceof GatewayError && error.tag === 'REFUND_NOT_ALLOWED');
      assert.match(error.message, /already settled/);
      assert.match(error.message, /EMSET/);
      return true;
    });
    assert.equal(statusOf(reference), 'PAID');
  });

  test("KBank's own 'over the day' (our clock still says the day of payment): REFUND_NOT_ALLOWED", async () => {
    // Nothing settles by itself here, so KBank's answer is about the day alone.
    const unsettled = await startKbankSim({ now: CONTRACT_DAY, autoSettleAt: null });
    const lagging = kbankConnectorFor(unsettled, {}, { now: () => CONTRACT_DAY + 3_600_000 });
    try {
      const reference = lagging.attemptReference('qr', 'over-the-day:1');
      await lagging.createPayment({
        transactionId: 'over-the-day',
        merchantId: 'M1',
        amountMinor: AMOUNT,
        currency: 'THB',
        reference1: 'REF1',
        attemptId: reference,
      });
      assert.ok(unsettled.pay(reference).ok);
      unsettled.setClock(CONTRACT_DAY + 24 * 3_600_000);
      await assert.rejects(lagging.refund(refundOf(reference)), (error: unknown) => {
        assert.ok(error instanceof GatewayError && error.tag === 'REFUND_NOT_ALLOWED');
        assert.match(error.message, /earlier day/);
        return true;
      });
      assert.equal(unsettled.state().records[0]!.status, 'PAID');
    } finally {
      lagging.close();
      await unsettled.close();
    }
  });

  test('the refusals say why, each in a sentence', async () => {
    const reference = await paidQr();
    const cases: Array<[Partial<RefundRequest>, RegExp, number]> = [
      [{ amountMinor: AMOUNT - 100n }, /whole 250\.00 THB, not 249\.99/, CONTRACT_DAY],
      [{ amountMinor: AMOUNT - 100n, refundedMinor: 100n }, /already refunded/, CONTRACT_DAY],
      [{}, /paid on 2026-01-05, not today/, CONTRACT_DAY + 24 * 3_600_000],
      [{}, /past 21:30 today/, CONTRACT_DAY + (11 * 60 + 30) * 60_000],
      [{ paymentReference: null }, /no paid KBank QR/, CONTRACT_DAY],
      [{ paidAt: null }, /not known/, CONTRACT_DAY],
    ];
    for (const [overrides, why, at] of cases) {
      sim.setClock(at);
      await assert.rejects(connector.refund({ ...refundOf(reference), ...overrides }), (error: unknown) => {
        assert.ok(error instanceof GatewayError && error.tag === 'REFUND_NOT_ALLOWED', String(error));
        assert.match(error.message, /^KBank QR payments can only be refunded in full/);
        assert.match(error.message, why);
        return true;
      });
    }
    assert.equal(voidsOf(reference).length, 0);
    assert.equal(statusOf(reference), 'PAID');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
