// Operator credits and debits (docs/ledger.md) on both stores: exact amounts, idempotency keys,
// refused overdrafts that change nothing, concurrent requests, and the invariants after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { LedgerOperations, type AdjustmentRequest } from '../../src/app/ledger-operations.ts';
import { LedgerRefusal, payoutAccount } from '../../src/domain/ledger.ts';
import { GatewayError } from '../../src/domain/errors.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`ledger operations [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let ops: LedgerOperations;
    let merchant: string;
    let n = 0;
    const req = (over: Partial<AdjustmentRequest> = {}): AdjustmentRequest => ({
      direction: 'credit',
      merchantId: merchant,
      amount: '100',
      currency: 'THB',
      reason: 'top-up',
      idempotencyKey: `key-${++n}`,
      ...over,
    });
    const thb = () => gw.services.ledger.balance(payoutAccount(merchant, 'THB'));
    const assertSound = async () =>
      assert.deepEqual(await ops.verify(), {
        ok: true,
        unbalancedEntries: [],
        malformedEntries: [],
        balanceMismatches: [],
        negativePayoutAccounts: [],
      });

    before(async () => {
      gw = await startTestGateway(dialect);
      const { store, ledger, merchants, now } = gw.services;
      ops = new LedgerOperations({ store, ledger, merchants, now });
    });
    after(() => gw?.close());

    test(
      'a credit then a debit move the merchant account ' + 'exactly, each balanced against the adjustment account',
      async () => {
        merchant = (await addMerchant(gw)).merchantid;
        const credit = await ops.adjust(req({ amount: '1000.1234' }));
        assert.equal(credit.replayed, false);
        assert.equal(credit.balanceMinor, 10_001_234n);
        assert.deepEqual(
          credit.entry.postings.map((p) => [p.accountId, p.amountMinor]),
          [
            [`merchant_payout:${merchant}:THB`, 10_001_234n],
            ['operator_adjustment:gateway:THB', -10_001_234n],
          ],
        );
        const debit = await ops.adjust(req({ direction: 'debit', amount: '0.1234', reason: 'correction' }));
        assert.equal(debit.balanceMinor, 10_000_000n);
        assert.equal(debit.entry.kind, 'debit');
        assert.equal(await thb(), 10_000_000n);
        await assertSound();
      },
    );

    test('the same idempotency key with the same request posts once and says it was replayed', async () => {
      merchant = (await addMerchant(gw)).merchantid;
      const request = req({ amount: '50', reason: 'monthly bonus' });
      const first = await ops.adjust(request);
      const again = await ops.adjust({ ...request, amount: '50.00', currency: 'thb', reason: '  monthly bonus ' });
      assert.equal(again.replayed, true);
      assert.equal(again.entry.id, first.entry.id);
      assert.equal(await thb(), 500_000n);
      assert.equal(await gw.services.ledger.countEntries({ merchantId: merchant }), 1);
    });

    test('the same key with a different request is refused and changes nothing', async () => {
      merchant = (await addMerchant(gw, { payoutCurrency: 'PHP' })).merchantid;
      const request = req({ amount: '50' });
      await ops.adjust(request);
      for (const different of [
        { amount: '51' },
        { direction: 'debit' as const },
        { reason: 'other' },
        { currency: 'PHP' },
      ]) {
        await assert.rejects(
          ops.adjust({ ...request, ...different }),
          (e) =>
            e instanceof LedgerRefusal &&
            e.reason === 'IDEMPOTENCY_CONFLICT' &&
            /already used for a different request/.test(e.message),
        );
      }
      const other = (await addMerchant(gw)).merchantid;
      await assert.rejects(
        ops.adjust({ ...request, merchantId: other }),
        (e) => e instanceof LedgerRefusal && e.reason === 'IDEMPOTENCY_CONFLICT',
      );
      assert.equal(await thb(), 500_000n);
      assert.equal(await gw.services.ledger.countEntries({ merchantId: merchant }), 1);
      assert.equal(await gw.services.ledger.countEntries({ merchantId: other }), 0);
    });

    test('a debit below zero is refused with a clear message, changes nothing and leaves the key unused', async () => {
      merchant = (await addMerchant(gw)).merchantid;
      await ops.adjust(req({ amount: '100' }));
      const entries = await gw.services.ledger.countEntries();
      const overdraft = req({ direction: 'debit', amount: '100.0001' });
      await assert.rejects(ops.adjust(overdraft), (e) => {
        assert.ok(e instanceof LedgerRefusal);
        assert.equal(e.reason, 'OVERDRAFT');
        assert.match(
          e.message,
          /100\.0001 THB would make the THB payout balance negative \(available 100\.0000 THB\); nothing was posted/,
        );
        return true;
      });
      assert.equal(await thb(), 1_000_000n);
      assert.equal(await gw.services.ledger.countEntries(), entries);
      assert.equal(await gw.services.ledger.findEntryByIdempotencyKey(overdraft.idempotencyKey), undefined);
      // After a top-up the same request (same key) goes through.
      await ops.adjust(req({ amount: '0.0001' }));
      const retried = await ops.adjust(overdraft);
      assert.equal(retried.replayed, false);
      assert.equal(await thb(), 0n);
      await assertSound();
    });

    test('a debit of an account that was never credited is refused', async () => {
      merchant = (await addMerchant(gw)).merchantid;
      await assert.rejects(
        ops.adjust(req({ direction: 'debit', amount: '0.0001' })),
        (e) => e instanceof LedgerRefusal && e.reason === 'OVERDRAFT',
      );
      assert.equal(await thb(), 0n);
    });

    test('amounts, currencies, reasons and keys are validated exactly', async () => {
      merchant = (await addMerchant(gw, { payoutCurrency: 'PHP' })).merchantid;
      const invalid = async (over: Partial<AdjustmentRequest>, pattern: RegExp) =>
        assert.rejects(ops.adjust(req(over)), (e) => e instanceof GatewayError && pattern.test(e.message));
      for (const amount of ['1.00001', '-5', '1e3', '0', '0.0000', ' ', '1,000', 'NaN', '10000000000000'])
        await invalid({ amount }, /amount/);
      await invalid({ currency: 'THX' }, /holds no THX/);
      await invalid({ currency: 'BAHT' }, /currency/);
      await invalid({ reason: '   ' }, /reason/);
      await invalid({ reason: 'x'.repeat(501) }, /reason/);
      await invalid({ idempotencyKey: 'has space' }, /idempotency-key/);
      await invalid({ idempotencyKey: 'k'.repeat(129) }, /idempotency-key/);
      await assert.rejects(
        ops.adjust(req({ merchantId: 'NOBODY' })),
        (e) => e instanceof GatewayError && e.tag === 'NOT_FOUND',
      );
      // The payout currency and the payment currency are both accepted.
      await ops.adjust(req({ currency: 'php', amount: '1' }));
      await ops.adjust(req({ currency: 'THB', amount: '1' }));
      assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'PHP')), 10_000n);
      assert.equal(await gw.services.ledger.countEntries({ merchantId: merchant }), 2);
    });

    test('racing requests with one idempotency key post exactly once', async () => {
      merchant = (await addMerchant(gw)).merchantid;
      const request = req({ amount: '7' });
      const results = await Promise.all(Array.from({ length: 8 }, () => ops.adjust(request)));
      assert.equal(results.filter((r) => !r.replayed).length, 1);
      assert.equal(new Set(results.map((r) => r.entry.id)).size, 1);
      assert.equal(await thb(), 70_000n);
      await assertSound();
    });

    test('racing debits never overdraw: exactly as many succeed as the balance covers', async () => {
      merchant = (await addMerchant(gw)).merchantid;
      await ops.adjust(req({ amount: '30' }));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => ops.adjust(req({ direction: 'debit', amount: '7' }))),
      );
      const ok = outcomes.filter((o) => o.status === 'fulfilled').length;
      const refused = outcomes.filter(
        (o) => o.status === 'rejected' && o.reason instanceof LedgerRefusal && o.reason.reason === 'OVERDRAFT',
      ).length;
      assert.equal(ok, 4);
      assert.equal(refused, 6);
      assert.equal(await thb(), 20_000n);
      await assertSound();
    });

    test('show lists the payout account first (even before any posting) and recent entries newest first', async () => {
      merchant = (await addMerchant(gw, { payoutCurrency: 'PHP' })).merchantid;
      const empty = await ops.show(merchant);
      assert.deepEqual(
        empty.accounts.map((a) => [a.currency, a.balanceMinor, a.isPayoutAccount]),
        [['PHP', 0n, true]],
      );
      gw.clock.now += 1000;
      await ops.adjust(req({ amount: '5' }));
      gw.clock.now += 1000;
      await ops.adjust(req({ amount: '2', direction: 'debit', reason: 'fee refund' }));
      const view = await ops.show(merchant, { limit: 1 });
      assert.deepEqual(
        view.accounts.map((a) => [a.currency, a.balanceMinor, a.postingCount, a.isPayoutAccount]),
        [
          ['PHP', 0n, 0n, true],
          ['THB', 30_000n, 2n, false],
        ],
      );
      assert.equal(view.entries.length, 1);
      assert.equal(view.entries[0]?.reason, 'fee refund');
      assert.deepEqual(view.entries[0]?.postings.map((p) => p.balanceAfterMinor)[0], 30_000n);
      await assert.rejects(ops.show(merchant, { limit: 0 }), /limit/);
    });
  });
}
