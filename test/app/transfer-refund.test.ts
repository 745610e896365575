// Refunds paid by bank transfer and recorded (app/record-transfer-refund.ts; docs/api.md "Refunds
// the processor cannot make"), on both stores: the refund use case's own rules and rows, with the
// transfer's reference and who sent it in place of the processor's step. Proves, against the
// stored rows:
//   - paid by the gateway, partial then the rest: the refund row says bank transfer, the reference
//     and the payer, the payment's total moves, one ledger entry (payout − amount, operator
//     adjustment + amount; clearing unchanged, docs/ledger.md), one refund notification in the
//     outbox, one audit entry naming who recorded it and who paid; the ledger still verifies;
//   - paid by the merchant: the refund row, the payment's total, the notification and the audit
//     entry, and no ledger entry at all: every balance unchanged, even one too low for the refund;
//   - refused with nothing written (no row, no entry, no event, no audit entry, balances unchanged):
//     more than is left, a payment that is not SUCCESS, a bad or missing transfer reference or
//     payer, a bad amount, the same reference with another amount or another payer;
//   - the same reference again (typed differently) answers the first refund and writes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { payoutBalance, startPayment } from '../support/lifecycle.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { CLI_RECORDER } from '../../src/app/record-transfer-refund.ts';
import { LedgerOperations } from '../../src/app/ledger-operations.ts';
import { GatewayError } from '../../src/domain/errors.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`refunds recorded as paid by bank transfer [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;

    before(async () => {
      gw = await startTestGateway(dialect);
      shop = await addMerchant(gw, { feeRate: '0.01' });
    });
    after(() => gw?.close());

    async function paid(amount: string): Promise<string> {
      const p = await startPayment(gw, shop, { bill_amount: amount });
      const done = await post(gw, '/sandbox/transaction/complete', {
        merchantid: shop.merchantid,
        password: shop.password,
        transactionid: p.transactionid,
        outcome: 'success',
      });
      assert.equal(done.status, 200, done.raw);
      return p.transactionid;
    }

    const record = (
      transactionId: string,
      amount: string,
      transferReference: unknown,
      reason: string | null = null,
      paidBy: unknown = 'gateway',
    ) =>
      gw.services.recordTransfer.record({
        merchantId: shop.merchantid,
        transactionId,
        amount,
        transferReference,
        paidBy,
        reason,
        by: CLI_RECORDER,
      });
    const gatewayAccount = (kind: 'gateway_clearing' | 'operator_adjustment') =>
      gw.services.ledger.balance({ kind, merchantId: null, currency: 'THB' });

    /** Every row a refund writes, for this payment and this merchant. */
    async function state(transactionId: string) {
      const db = gw.testStore.db;
      const refunds = await gw.services.refunds.ofTransaction(transactionId);
      const entries = await db
        .selectFrom('journal_entries')
        .select(['idempotency_key', 'reason'])
        .where('kind', '=', 'refund')
        .where('merchant_id', '=', shop.merchantid)
        .execute();
      const events = await db
        .selectFrom('outbox_events')
        .select(['refund_id', 'payload'])
        .where('transaction_id', '=', transactionId)
        .where('refund_id', 'is not', null)
        .execute();
      const audit = await gw.services.store.consoleAccounts.listAudit({
        limit: 100,
        action: 'payment.refund_recorded',
      });
      return {
        refunds,
        refundedMinor: (await gw.services.transactions.findById(shop.merchantid, transactionId))!.refundedMinor,
        entries: entries.map((e) => ({ ...e })),
        events: events.map((e) => ({ ...e })),
        audit: audit.filter((a) => a.target === transactionId),
        balance: await payoutBalance(gw, shop.merchantid),
        clearing: await gatewayAccount('gateway_clearing'),
        adjustment: await gatewayAccount('operator_adjustment'),
      };
    }

    async function refusedWithNothingWritten(
      transactionId: string,
      attempt: () => Promise<unknown>,
      tag: string,
      message: RegExp,
    ) {
      const before = await state(transactionId);
      await assert.rejects(attempt, (error: unknown) => {
        assert.ok(error instanceof GatewayError, String(error));
        assert.equal(error.tag, tag);
        assert.match(error.message, message);
        return true;
      });
      assert.deepEqual(await state(transactionId), before, 'nothing written');
    }

    test('paid by the gateway, partial then the rest: rows, ledger, notification and audit', async () => {
      const id = await paid('1000.00');
      const start = await state(id);
      assert.equal(start.balance, 990_0000n, 'the payment credited 1000 less the 1 % fee');

      const first = await record(id, '400.00', 'FT24015ABC123', 'paid back by the shop');
      assert.equal(first.replayed, false);
      assert.equal(first.response.refunded_amount, '400.00');
      assert.equal(first.response.refundable_amount, '600.00');
      const after1 = await state(id);
      assert.equal(after1.refunds.length, 1);
      const [refund] = after1.refunds;
      assert.equal(refund!.processor, 'bank_transfer');
      assert.equal(refund!.processorReference, 'FT24015ABC123');
      assert.equal(refund!.transferPaidBy, 'gateway');
      assert.equal(refund!.amountMinor, 400_0000n);
      assert.equal(refund!.reason, 'paid back by the shop');
      assert.equal(after1.refundedMinor, 400_0000n);
      assert.equal(after1.balance, start.balance - 400_0000n, "the refund comes off the merchant's balance");
      assert.equal(after1.clearing, start.clearing, 'clearing unchanged: the processor refunded nothing');
      assert.equal(after1.adjustment, start.adjustment + 400_0000n, 'the money left outside the processor');
      const trackid = (await gw.services.transactions.findById(shop.merchantid, id))!.trackid;
      assert.deepEqual(after1.entries, [
        {
          idempotency_key: `refund:${refund!.id}`,
          reason: `refund ${refund!.id} of payment ${trackid} (bank transfer FT24015ABC123 paid by the gateway)`,
        },
      ]);
      const entry = await gw.services.ledger.findEntryByIdempotencyKey(`refund:${refund!.id}`);
      assert.deepEqual(
        entry!.postings.map((p) => [p.kind, p.amountMinor]).sort(),
        [
          ['merchant_payout', -400_0000n],
          ['operator_adjustment', 400_0000n],
        ],
        'against the operator adjustment account, as an operator debit',
      );
      assert.equal(after1.events.length, 1);
      const body = JSON.parse(after1.events[0]!.payload);
      assert.deepEqual(
        [body.event_type, body.refundid, body.bill_amount, body.refunded_amount, body.reason],
        ['refund', refund!.id, '400.00', '400.00', 'paid back by the shop'],
      );
      assert.equal(after1.audit.length, 1);
      assert.deepEqual(
        { role: after1.audit[0]!.actorRole, details: after1.audit[0]!.details },
        {
          role: 'cli',
          details: {
            refundid: refund!.id,
            merchantid: shop.merchantid,
            amount: '400.00',
            currency: 'THB',
            transfer_reference: 'FT24015ABC123',
            paid_by: 'gateway',
            reason: 'paid back by the shop',
          },
        },
      );

      // The same limits as any refund: the fee stays earned, so the rest needs 10 more on the balance.
      await refusedWithNothingWritten(
        id,
        () => record(id, '600', '20260105-000123'),
        'INSUFFICIENT_BALANCE',
        /available balance \(590\.0000 THB\) cannot cover the refund of 600\.00 THB/,
      );
      const ledger = new LedgerOperations({
        store: gw.services.store,
        ledger: gw.services.ledger,
        merchants: gw.services.merchants,
        now: () => gw.clock.now,
      });
      await ledger.adjust({
        direction: 'credit',
        merchantId: shop.merchantid,
        amount: '10',
        currency: 'THB',
        reason: 'top-up for the last refund',
        idempotencyKey: `top-up-${id}`,
      });
      const rest = await record(id, '600', '20260105-000123');
      assert.equal(rest.response.refundable_amount, '0.00');
      const after2 = await state(id);
      assert.equal(after2.refundedMinor, 1000_0000n);
      assert.equal(after2.refunds.length, 2);
      assert.equal(after2.balance, 0n, '990 + 10 topped up − 1000 refunded');
      assert.equal(after2.clearing, start.clearing);
      assert.equal(after2.events.length, 2);
      assert.equal(after2.audit.length, 2);
      const check = await ledger.verify();
      assert.equal(
        check.ok,
        true,
        JSON.stringify(check, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      );
    });

    test('paid by the merchant: refund, total, notification, audit; no ledger entry, no balance moves', async () => {
      const id = await paid('1000.00');
      const start = await state(id);
      // More than the merchant's balance (990): nothing of the gateway's funds moves, so it is not asked.
      const recorded = await record(id, '1000.00', 'SCB-OWN-77', 'paid from the shop account', 'merchant');
      assert.equal(recorded.replayed, false);
      assert.equal(recorded.response.refundable_amount, '0.00');
      const after = await state(id);
      assert.equal(after.refunds.length, 1);
      assert.deepEqual(
        [after.refunds[0]!.processor, after.refunds[0]!.processorReference, after.refunds[0]!.transferPaidBy],
        ['bank_transfer', 'SCB-OWN-77', 'merchant'],
      );
      assert.equal(after.refundedMinor, 1000_0000n);
      assert.deepEqual(after.entries, start.entries, 'no ledger entry');
      assert.equal(await gw.services.ledger.findEntryByIdempotencyKey(`refund:${recorded.refund.id}`), undefined);
      assert.deepEqual(
        [after.balance, after.clearing, after.adjustment],
        [start.balance, start.clearing, start.adjustment],
        'no balance moves',
      );
      assert.equal(after.events.length, 1);
      const body = JSON.parse(after.events[0]!.payload);
      assert.deepEqual(
        [body.event_type, body.refundid, body.bill_amount, body.refunded_amount],
        ['refund', recorded.refund.id, '1000.00', '1000.00'],
      );
      assert.equal(after.audit.length, 1);
      assert.equal(after.audit[0]!.details.paid_by, 'merchant');
      const ledger = new LedgerOperations({
        store: gw.services.store,
        ledger: gw.services.ledger,
        merchants: gw.services.merchants,
        now: () => gw.clock.now,
      });
      assert.equal((await ledger.verify()).ok, true);
    });

    test('the same reference again (any case, spaces around) answers the first refund; nothing written', async () => {
      const id = await paid('500.00');
      const first = await record(id, '100.00', 'KB-778/01');
      const before = await state(id);
      const again = await record(id, '100', '  kb-778/01 ', 'a different reason changes nothing');
      assert.equal(again.replayed, true);
      assert.equal(again.refund.id, first.refund.id);
      assert.deepEqual(again.response, first.response);
      assert.deepEqual(await state(id), before);
    });

    test('the same reference with another amount: refused, naming the reference and the first refund', async () => {
      const id = await paid('500.00');
      const first = await record(id, '100.00', 'FT-SAME-1');
      await refusedWithNothingWritten(
        id,
        () => record(id, '150.00', 'FT-SAME-1'),
        'IDEMPOTENCY_KEY_REUSED',
        new RegExp(
          'transfer_reference FT-SAME-1 was already recorded for this payment, ' +
            `as a refund of 100\\.00 THB paid by the gateway \\(${first.refund.id}\\)`,
        ),
      );
    });

    test('the same reference with another payer: refused, naming who paid the first; nothing written', async () => {
      const id = await paid('500.00');
      const first = await record(id, '100.00', 'FT-PAYER-1', null, 'merchant');
      await refusedWithNothingWritten(
        id,
        () => record(id, '100.00', 'FT-PAYER-1', null, 'gateway'),
        'IDEMPOTENCY_KEY_REUSED',
        new RegExp(`as a refund of 100\\.00 THB paid by the merchant \\(${first.refund.id}\\)`),
      );
    });

    test('more than is left: REFUND_EXCEEDS_AVAILABLE, nothing written', async () => {
      const id = await paid('300.00');
      await record(id, '100.00', 'FT-PART');
      await refusedWithNothingWritten(
        id,
        () => record(id, '200.01', 'FT-OVER'),
        'REFUND_EXCEEDS_AVAILABLE',
        /200\.01 THB is more than the 200\.00 THB still refundable/,
      );
    });

    test('a payment that is not SUCCESS: REFUND_NOT_ALLOWED, nothing written', async () => {
      const open = await startPayment(gw, shop, { bill_amount: '100.00' });
      await refusedWithNothingWritten(
        open.transactionid,
        () => record(open.transactionid, '100.00', 'FT-OPEN'),
        'REFUND_NOT_ALLOWED',
        /this payment is still processing/,
      );
      const failed = await startPayment(gw, shop, { bill_amount: '100.00' });
      await post(gw, '/sandbox/transaction/complete', {
        merchantid: shop.merchantid,
        password: shop.password,
        transactionid: failed.transactionid,
        outcome: 'failed',
      });
      await refusedWithNothingWritten(
        failed.transactionid,
        () => record(failed.transactionid, '100.00', 'FT-FAILED'),
        'REFUND_NOT_ALLOWED',
        /this payment is not successful/,
      );
    });

    test('the transfer reference and the amount follow their rules, each named', async () => {
      const id = await paid('100.00');
      const cases: Array<[string, unknown, string, RegExp]> = [
        ['10.00', undefined, 'MISSING_FIELD', /'transfer_reference' is required/],
        ['10.00', '   ', 'MISSING_FIELD', /'transfer_reference' is required/],
        ['10.00', 'A'.repeat(65), 'INVALID_FIELD', /'transfer_reference' is invalid: it must be at most 64 characters/],
        [
          '10.00',
          'FT 123',
          'INVALID_FIELD',
          /'transfer_reference' is invalid: it must be the bank transfer's reference/,
        ],
        ['10.00', '-FT123', 'INVALID_FIELD', /'transfer_reference' is invalid/],
        ['10.00', 'FT\u0000123', 'INVALID_FIELD', /'transfer_reference' is invalid: it must not contain control/],
        ['10.001', 'FT-OK', 'INVALID_FIELD', /'amount' is invalid: THB amounts have at most 2 fraction digits/],
        ['0', 'FT-OK', 'INVALID_FIELD', /'amount' is invalid: a refund must be more than 0/],
        ['1e3', 'FT-OK', 'INVALID_FIELD', /'amount' is invalid: it must be a number or a numeric string/],
        ['', 'FT-OK', 'MISSING_FIELD', /'amount' is required/],
      ];
      for (const [amount, reference, tag, message] of cases)
        await refusedWithNothingWritten(id, () => record(id, amount, reference), tag, message);
      const payers: Array<[unknown, string, RegExp]> = [
        [undefined, 'MISSING_FIELD', /'paid_by' is required/],
        ['', 'MISSING_FIELD', /'paid_by' is required/],
        ['operator', 'INVALID_FIELD', /'paid_by' is invalid: it must be 'gateway' .* or 'merchant'/],
        ['Gateway', 'INVALID_FIELD', /'paid_by' is invalid/],
      ];
      // Called directly: `record`'s default would stand in for an undefined payer.
      for (const [paidBy, tag, message] of payers)
        await refusedWithNothingWritten(
          id,
          () =>
            gw.services.recordTransfer.record({
              merchantId: shop.merchantid,
              transactionId: id,
              amount: '10.00',
              transferReference: 'FT-PAYER',
              paidBy,
              reason: null,
              by: CLI_RECORDER,
            }),
          tag,
          message,
        );
    });

    test("another merchant's payment is not found; nothing written", async () => {
      const id = await paid('100.00');
      const other = await addMerchant(gw);
      await refusedWithNothingWritten(
        id,
        () =>
          gw.services.recordTransfer.record({
            merchantId: other.merchantid,
            transactionId: id,
            amount: '10.00',
            transferReference: 'FT-OTHER',
            paidBy: 'gateway',
            reason: null,
            by: CLI_RECORDER,
          }),
        'NOT_FOUND',
        /No transaction with that transactionid exists for this merchant/,
      );
    });
  });
}
