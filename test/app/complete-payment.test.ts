// The `complete` use case (docs/api.md "Lifecycle") on both stores: the sandbox amount rule at its
// edges, the other causes, one transaction per ending (state + transition + ledger + outbox), final
// states that never change, and concurrent completions that produce one ending.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError, isGatewayError } from '../../src/domain/errors.ts';
import { decideCompletion, SANDBOX_SUCCESS_LIMIT_MINOR } from '../../src/domain/lifecycle.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { payoutBalance, snapshot, startPayment } from '../support/lifecycle.ts';

describe('decideCompletion (pure)', () => {
  const base = { amountMinor: 1_000_000n, expiresAt: 1_000, now: 999 };
  test('before the deadline the cause decides; the sandbox rule is ≤ 10000.00', () => {
    assert.deepEqual(decideCompletion({ ...base, cause: 'confirm' }).outcome, { status: 'SUCCESS', tag: null });
    assert.deepEqual(decideCompletion({ ...base, cause: 'cancel' }).outcome, { status: 'FAILED', tag: 'CANCELLED' });
    assert.deepEqual(
      decideCompletion({ ...base, cause: 'sandbox', amountMinor: SANDBOX_SUCCESS_LIMIT_MINOR }).outcome.status,
      'SUCCESS',
    );
    assert.deepEqual(
      decideCompletion({ ...base, cause: 'sandbox', amountMinor: SANDBOX_SUCCESS_LIMIT_MINOR + 100n }).outcome,
      { status: 'FAILED', tag: 'DECLINED' },
    );
  });
  test('at or after the deadline every ending without an override is EXPIRED, recorded with cause expire', () => {
    for (const cause of ['confirm', 'cancel', 'sandbox', 'expire'] as const) {
      assert.deepEqual(
        decideCompletion({ ...base, now: 1_000, cause }),
        { cause: 'expire', outcome: { status: 'FAILED', tag: 'EXPIRED' } },
        cause,
      );
    }
  });
  test('an explicit sandbox override still wins after the deadline; expire before the deadline is refused', () => {
    assert.deepEqual(
      decideCompletion({ ...base, now: 5_000, cause: 'sandbox', override: 'success' }).outcome.status,
      'SUCCESS',
    );
    assert.throws(
      () => decideCompletion({ ...base, cause: 'expire' }),
      (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_STATE',
    );
  });
  test('a payment the processor reports paid ends SUCCESS, before and after the deadline, whatever its amount', () => {
    for (const now of [999, 1_000, 60_000]) {
      assert.deepEqual(
        decideCompletion({ ...base, now, amountMinor: SANDBOX_SUCCESS_LIMIT_MINOR * 5n, cause: 'processor_paid' }),
        { cause: 'processor_paid', outcome: { status: 'SUCCESS', tag: null } },
        `now ${now}`,
      );
    }
  });
});

for (const { dialect, skip } of await testDialects()) {
  describe(`complete payment [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const edges = [
      { amount: '100', status: 'SUCCESS', tag: null },
      { amount: '9999.99', status: 'SUCCESS', tag: null },
      { amount: '10000', status: 'SUCCESS', tag: null },
      { amount: '10000.01', status: 'FAILED', tag: 'DECLINED' },
      { amount: '15000', status: 'FAILED', tag: 'DECLINED' },
    ] as const;
    for (const edge of edges) {
      test(
        `sandbox completion of ${edge.amount} THB → ${edge.status}${edge.tag ? ` ${edge.tag}` : ''}, ` +
          `written with transition, ledger and outbox`,
        async () => {
          const p = await startPayment(gw, creds, { bill_amount: edge.amount });
          const balanceBefore = await payoutBalance(gw, creds.merchantid);
          gw.clock.now += 1000;
          const done = await gw.services.complete.execute(p.transactionid, 'sandbox');
          assert.equal(done.status, edge.status);
          assert.equal(done.errorCodeTag, edge.tag);

          const s = await snapshot(gw, p.transactionid);
          assert.equal(s.status, edge.status);
          assert.equal(s.errorCodeTag, edge.tag);
          assert.equal(s.completedAt, gw.clock.now);
          assert.deepEqual(s.transitions, [
            {
              transactionId: p.transactionid,
              fromStatus: 'PROCESSING',
              toStatus: edge.status,
              cause: 'sandbox',
              errorCodeTag: edge.tag,
              at: gw.clock.now,
            },
          ]);
          assert.equal(s.outbox.length, 1);
          const notification = JSON.parse(s.outbox[0]!.payload);
          assert.equal(notification.responsecode, edge.status === 'SUCCESS' ? '0' : '6');
          assert.equal(notification.error_code_tag, edge.tag);
          const credited = (await payoutBalance(gw, creds.merchantid)) - balanceBefore;
          if (edge.status === 'SUCCESS') {
            assert.equal(s.entries.length, 1, 'one journal entry for a successful payment');
            assert.equal(
              credited,
              BigInt(edge.amount.replace('.', '')) * (edge.amount.includes('.') ? 100n : 10_000n),
              'merchant credited the amount (fee 0)',
            );
          } else {
            assert.equal(s.entries.length, 0, 'a failed payment posts nothing');
            assert.equal(credited, 0n);
          }
        },
      );
    }

    for (const [override, status, tag] of [
      ['success', 'SUCCESS', null],
      ['failed', 'FAILED', 'DECLINED'],
      ['cancelled', 'FAILED', 'CANCELLED'],
      ['expired', 'FAILED', 'EXPIRED'],
    ] as const) {
      test(`the sandbox outcome override '${override}' beats the amount rule`, async () => {
        const p = await startPayment(gw, creds, { bill_amount: override === 'success' ? '15000' : '100' });
        const done = await gw.services.complete.execute(p.transactionid, 'sandbox', { override });
        assert.equal(done.status, status);
        assert.equal(done.errorCodeTag, tag);
      });
    }

    test('cancel by the customer → FAILED CANCELLED, stored with cause cancel', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '500' });
      const done = await gw.services.complete.execute(p.transactionid, 'cancel');
      assert.equal(done.status, 'FAILED');
      assert.equal(done.errorCodeTag, 'CANCELLED');
      const s = await snapshot(gw, p.transactionid);
      assert.equal(s.transitions[0]?.cause, 'cancel');
      assert.equal(s.entries.length, 0);
      assert.equal(s.outbox.length, 1);
    });

    test(
      'expiry only after the TTL (moved with the injectable ' + 'clock), stored with cause expire and its time',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '500' });
        gw.clock.now += gw.config.transactionTtlMs - 1;
        await assert.rejects(
          gw.services.complete.execute(p.transactionid, 'expire'),
          (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_STATE',
        );
        assert.equal((await snapshot(gw, p.transactionid)).status, 'PROCESSING');
        gw.clock.now += 1;
        const done = await gw.services.complete.execute(p.transactionid, 'expire');
        assert.equal(done.errorCodeTag, 'EXPIRED');
        const s = await snapshot(gw, p.transactionid);
        assert.deepEqual(
          s.transitions.map((t) => [t.cause, t.toStatus, t.errorCodeTag, t.at]),
          [['expire', 'FAILED', 'EXPIRED', gw.clock.now]],
        );
      },
    );

    test('a confirm after the TTL (sweeper not yet run) ends as EXPIRED, never SUCCESS', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '500' });
      gw.clock.now += gw.config.transactionTtlMs;
      const done = await gw.services.complete.execute(p.transactionid, 'confirm');
      assert.equal(done.status, 'FAILED');
      assert.equal(done.errorCodeTag, 'EXPIRED');
      assert.equal((await snapshot(gw, p.transactionid)).entries.length, 0);
    });

    test('a second completion is refused with INVALID_STATE and changes nothing', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '700' });
      await gw.services.complete.execute(p.transactionid, 'confirm');
      const before = await snapshot(gw, p.transactionid);
      const balance = await payoutBalance(gw, creds.merchantid);
      gw.clock.now += 5000;
      for (const cause of ['confirm', 'cancel', 'sandbox'] as const) {
        await assert.rejects(
          gw.services.complete.execute(p.transactionid, cause),
          (e: unknown) => e instanceof GatewayError && e.tag === 'INVALID_STATE' && /already final/.test(e.message),
        );
      }
      await assert.rejects(
        gw.services.complete.execute(p.transactionid, 'sandbox', { override: 'failed' }),
        (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_STATE',
      );
      gw.clock.now += gw.config.transactionTtlMs;
      await assert.rejects(
        gw.services.complete.execute(p.transactionid, 'expire'),
        (e: unknown) => isGatewayError(e) && e.tag === 'INVALID_STATE',
      );
      assert.deepEqual(await snapshot(gw, p.transactionid), before);
      assert.equal(await payoutBalance(gw, creds.merchantid), balance);
    });

    test(
      'concurrent completions of one transaction: exactly one ending, ' +
        'one transition, one outbox row, one ledger entry',
      async () => {
        for (let round = 0; round < 3; round++) {
          const p = await startPayment(gw, creds, { bill_amount: '250' });
          const causes = [
            'confirm',
            'sandbox',
            'cancel',
            'confirm',
            'sandbox',
            'confirm',
            'cancel',
            'sandbox',
          ] as const;
          const results = await Promise.allSettled(
            causes.map((cause) => gw.services.complete.execute(p.transactionid, cause)),
          );
          const won = results.filter((r) => r.status === 'fulfilled');
          const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
          assert.equal(won.length, 1, 'exactly one completion wins');
          assert.ok(
            lost.every((r) => isGatewayError(r.reason) && r.reason.tag === 'INVALID_STATE'),
            String(lost.find((r) => !isGatewayError(r.reason))?.reason),
          );
          const s = await snapshot(gw, p.transactionid);
          assert.equal(s.transitions.length, 1);
          assert.equal(s.outbox.length, 1);
          assert.equal(s.entries.length, s.status === 'SUCCESS' ? 1 : 0);
          assert.equal(s.status, (won[0] as PromiseFulfilledResult<{ status: string }>).value.status);
        }
      },
    );

    test(
      'the merchant scope: another merchant cannot complete ' + 'the transaction (NOT_FOUND), and nothing changes',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '300' });
        const other = await addMerchant(gw);
        await assert.rejects(
          gw.services.complete.execute(p.transactionid, 'sandbox', { merchantId: other.merchantid }),
          (e: unknown) => isGatewayError(e) && e.tag === 'NOT_FOUND',
        );
        assert.equal((await snapshot(gw, p.transactionid)).status, 'PROCESSING');
      },
    );

    test('listeners hear about a final state only after it is committed', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '300' });
      const heard: Array<{ id: string; status: string | undefined }> = [];
      const listener = (id: string) => {
        void gw.services.transactions.findById(creds.merchantid, id).then((t) => heard.push({ id, status: t?.status }));
      };
      gw.services.finalisedListeners.push(listener);
      try {
        await gw.services.complete.execute(p.transactionid, 'confirm');
        await new Promise((resolve) => setImmediate(resolve));
        for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.deepEqual(heard, [{ id: p.transactionid, status: 'SUCCESS' }]);
      } finally {
        gw.services.finalisedListeners.splice(gw.services.finalisedListeners.indexOf(listener), 1);
      }
    });
  });
}
