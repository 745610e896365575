// POST /transaction/refund on both stores: the WooCommerce plugin's real request, full and
// partial refunds, exact money, the refundable limit (also under concurrency), idempotency,
// only SUCCESS payments, the merchant balance, ledger postings, the refund notification in the
// outbox, field errors in the refund shape, and refunded_amount on /transaction/status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  fixture,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { startPayment } from '../../support/lifecycle.ts';
import { LedgerOperations } from '../../../src/app/ledger-operations.ts';

const REFUND_KEYS = [
  'type',
  'result',
  'responsecode',
  'merchantid',
  'trackid',
  'transactionid',
  'refundid',
  'reference',
  'bill_amount',
  'bill_currencycode',
  'refunded_amount',
  'refundable_amount',
  'error_code_tag',
  'error_text',
  'created_at',
].sort();

for (const { dialect, skip } of await testDialects()) {
  describe(`refunds [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const auth = () => ({ merchantid: creds.merchantid, password: creds.password });
    const refund = (
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
      c: MerchantCredentials = creds,
    ) =>
      post(
        gw,
        '/transaction/refund',
        { merchantid: c.merchantid, password: c.password, bill_currencycode: 'THB', ...body },
        headers,
      );
    const status = (transactionid: string) => post(gw, '/transaction/status', { ...auth(), transactionid });
    const payout = (merchantId = creds.merchantid) =>
      gw.services.ledger.balance({ kind: 'merchant_payout', merchantId, currency: 'THB' });
    const clearing = () => gw.services.ledger.balance({ kind: 'gateway_clearing', merchantId: null, currency: 'THB' });
    const refundRows = (transactionId: string) => gw.services.refunds.ofTransaction(transactionId);

    /** A SUCCESS payment of `amount` THB (sandbox completion), via the real API. */
    async function paid(amount: string, c: MerchantCredentials = creds): Promise<string> {
      const p = await startPayment(gw, c, { bill_amount: amount });
      const done = await post(gw, '/sandbox/transaction/complete', {
        merchantid: c.merchantid,
        password: c.password,
        transactionid: p.transactionid,
        outcome: 'success',
      });
      assert.equal(done.body.responsecode, '0', done.raw);
      return p.transactionid;
    }

    function assertError(
      res: Awaited<ReturnType<typeof refund>>,
      httpStatus: number,
      code: string,
      tag: string,
      field?: string,
    ) {
      assert.equal(res.status, httpStatus, res.raw);
      assert.deepEqual(Object.keys(res.body).sort(), REFUND_KEYS);
      assert.equal(res.body.type, 'error');
      assert.equal(res.body.result, 'Not Successful');
      assert.equal(res.body.responsecode, code);
      assert.equal(res.body.error_code_tag, tag);
      if (field) assert.match(res.body.error_text, new RegExp(`'${field}'`), res.body.error_text);
    }

    test(
      "the WooCommerce plugin's refund request (fixture) " + 'refunds the whole order; what the plugin checks holds',
      async () => {
        const init = await post(
          gw,
          '/transaction/s2s',
          fixture('woocommerce-thai-debit.json', creds).replace('4711_1763700000', `4711_${dialect}`),
        );
        assert.equal(init.body.responsecode, '9', init.raw);
        const txid = init.body.transactionid as string;
        await post(gw, '/sandbox/transaction/complete', { ...auth(), transactionid: txid });
        const payoutBefore = await payout();
        const clearingBefore = await clearing();

        const res = await post(
          gw,
          '/transaction/refund',
          fixture('woocommerce-refund.json', creds).replaceAll('TRANSACTION_ID', txid),
        );
        assert.equal(res.status, 200, res.raw);
        assert.deepEqual(Object.keys(res.body).sort(), REFUND_KEYS);
        // The plugin: type "valid" and (result CAPTURED/Success or responsecode "0").
        assert.equal(res.body.type, 'valid');
        assert.equal(res.body.result, 'Success');
        assert.equal(res.body.responsecode, '0');
        assert.equal(res.body.transactionid, txid);
        assert.equal(res.body.trackid, 'somchai@example.co.th', "the request's trackid echoed, as the plugin reads it");
        assert.equal(res.body.reference, 'somchai@example.co.th', 'the request trackid is the reference, not matched');
        assert.match(res.body.refundid, /^rfd_[A-Za-z0-9_-]{26}$/);
        assert.equal(res.body.bill_amount, '150.00');
        assert.equal(res.body.bill_currencycode, 'THB');
        assert.equal(res.body.refunded_amount, '150.00');
        assert.equal(res.body.refundable_amount, '0.00');
        assert.equal(res.body.error_code_tag, null);

        // Ledger: payout − 150, clearing + 150, in 1/10,000 units.
        assert.equal(await payout(), payoutBefore - 1_500_000n);
        assert.equal(await clearing(), clearingBefore + 1_500_000n);
        const s = await status(txid);
        assert.equal(s.body.refunded_amount, '150.00');
        assert.equal(s.body.responsecode, '0', 'the payment itself stays a captured payment');
        const stored = await refundRows(txid);
        assert.equal(stored.length, 1);
        assert.equal(stored[0]!.reason, 'Refund for order #4711: customer returned the item');
      },
    );

    test('partial refunds add up exactly; one cent more than captured is refused and changes nothing', async () => {
      const txid = await paid('100.00');
      const answers = [];
      for (const amount of ['33.33', 33.33, '33.34']) {
        const res = await refund({ transactionid: txid, bill_amount: amount, reason: `part ${answers.length + 1}` });
        assert.equal(res.status, 200, res.raw);
        answers.push(res.body);
      }
      assert.deepEqual(
        answers.map((a) => [a.refunded_amount, a.refundable_amount]),
        [
          ['33.33', '66.67'],
          ['66.66', '33.34'],
          ['100.00', '0.00'],
        ],
      );
      assert.equal(new Set(answers.map((a) => a.refundid)).size, 3);
      const payoutBefore = await payout();
      const over = await refund({ transactionid: txid, bill_amount: '0.01' });
      assertError(over, 409, '3004', 'REFUND_EXCEEDS_AVAILABLE');
      assert.equal(await payout(), payoutBefore);
      assert.equal((await refundRows(txid)).length, 3);
      assert.equal((await status(txid)).body.refunded_amount, '100.00');
    });

    test('more than still refundable → 3004 naming the amounts', async () => {
      const txid = await paid('500');
      assert.equal((await refund({ transactionid: txid, bill_amount: '400' })).status, 200);
      const res = await refund({ transactionid: txid, bill_amount: '100.01' });
      assertError(res, 409, '3004', 'REFUND_EXCEEDS_AVAILABLE');
      assert.match(res.body.error_text, /100\.01 THB.*100\.00 THB still refundable/);
    });

    test(
      'the same request twice refunds once (derived key); the ' +
        'replay answers the same body with Idempotent-Replayed',
      async () => {
        const txid = await paid('200');
        const body = {
          transactionid: txid,
          tranid: txid,
          bill_amount: '50',
          reason: 'damaged',
          trackid: 'buyer@example.com',
        };
        const first = await refund(body);
        const again = await refund(body);
        assert.equal(first.status, 200);
        assert.equal(again.status, 200);
        assert.equal(first.headers['idempotent-replayed'], undefined);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.body, first.body);
        assert.equal((await refundRows(txid)).length, 1);
        // Different content (another reason) is another refund.
        const other = await refund({ ...body, reason: 'second item' });
        assert.equal(other.status, 200);
        assert.equal(other.body.refunded_amount, '100.00');
      },
    );

    test(
      'an explicit Idempotency-Key (header or refund_reference) ' +
        'decides; the same key with different content → 409 3000',
      async () => {
        const txid = await paid('300');
        const first = await refund(
          { transactionid: txid, bill_amount: '10' },
          { 'idempotency-key': `rk-${dialect}-1` },
        );
        const sameKeyInBody = await refund({
          transactionid: txid,
          bill_amount: '10',
          refund_reference: `rk-${dialect}-1`,
        });
        assert.equal(sameKeyInBody.headers['idempotent-replayed'], 'true');
        assert.equal(sameKeyInBody.body.refundid, first.body.refundid);
        const changed = await refund(
          { transactionid: txid, bill_amount: '11' },
          { 'idempotency-key': `rk-${dialect}-1` },
        );
        assertError(changed, 409, '3000', 'IDEMPOTENCY_KEY_REUSED');
        // Two identical bodies with two keys are two refunds.
        const second = await refund(
          { transactionid: txid, bill_amount: '10' },
          { 'idempotency-key': `rk-${dialect}-2` },
        );
        assert.equal(second.body.refunded_amount, '20.00');
        assert.equal((await refundRows(txid)).length, 2);
        const mismatch = await refund(
          { transactionid: txid, bill_amount: '10', refund_reference: 'a' },
          { 'idempotency-key': 'b' },
        );
        assertError(mismatch, 400, '2002', 'INVALID_FIELD', 'refund_reference');
      },
    );

    test('only SUCCESS payments: processing, declined, cancelled → 409 3003, nothing written', async () => {
      const processing = await startPayment(gw, creds, { bill_amount: '100' });
      assertError(
        await refund({ transactionid: processing.transactionid, bill_amount: '100' }),
        409,
        '3003',
        'REFUND_NOT_ALLOWED',
      );
      for (const outcome of ['failed', 'cancelled', 'expired']) {
        const p = await startPayment(gw, creds, { bill_amount: '100' });
        await post(gw, '/sandbox/transaction/complete', { ...auth(), transactionid: p.transactionid, outcome });
        assertError(
          await refund({ transactionid: p.transactionid, bill_amount: '1' }),
          409,
          '3003',
          'REFUND_NOT_ALLOWED',
        );
        assert.equal((await refundRows(p.transactionid)).length, 0);
      }
    });

    test("unknown transaction, or another merchant's → 404 3001", async () => {
      assertError(
        await refund({ transactionid: '0190d2b4-0000-7000-8000-000000000000', bill_amount: '1' }),
        404,
        '3001',
        'NOT_FOUND',
      );
      const other = await addMerchant(gw);
      const theirs = await paid('100', other);
      assertError(await refund({ transactionid: theirs, bill_amount: '1' }), 404, '3001', 'NOT_FOUND');
      assert.equal((await refundRows(theirs)).length, 0);
    });

    test('field rules → 400 in the refund shape naming the field', async () => {
      const txid = await paid('100');
      assertError(await refund({ bill_amount: '1' }), 400, '2001', 'MISSING_FIELD', 'transactionid');
      assertError(
        await refund({ tranid: txid, transactionid: `${txid}x`, bill_amount: '1' }),
        400,
        '2002',
        'INVALID_FIELD',
        'tranid',
      );
      assertError(await refund({ transactionid: txid }), 400, '2001', 'MISSING_FIELD', 'bill_amount');
      assertError(await refund({ transactionid: txid, bill_amount: '0' }), 400, '2002', 'INVALID_FIELD', 'bill_amount');
      assertError(
        await refund({ transactionid: txid, bill_amount: '1.001' }),
        400,
        '2002',
        'INVALID_FIELD',
        'bill_amount',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '-1' }),
        400,
        '2002',
        'INVALID_FIELD',
        'bill_amount',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '1', bill_currencycode: 'USD' }),
        400,
        '2002',
        'INVALID_FIELD',
        'bill_currencycode',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '1', reason: 'a\u0000b' }),
        400,
        '2002',
        'INVALID_FIELD',
        'reason',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '1', reason: 'x'.repeat(256) }),
        400,
        '2002',
        'INVALID_FIELD',
        'reason',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '1', trackid: 'x'.repeat(255) }),
        400,
        '2002',
        'INVALID_FIELD',
        'trackid',
      );
      assertError(
        await refund({ transactionid: txid, bill_amount: '1' }, {}, { ...creds, password: 'wrong-password-123' }),
        401,
        '1000',
        'INVALID_CREDENTIALS',
      );
      const lower = await refund({ transactionid: txid, bill_amount: 1, bill_currencycode: 'thb', tranid: txid });
      assert.equal(lower.status, 200, 'currency is case-insensitive; tranid equal to transactionid is fine');
      assert.equal((await refundRows(txid)).length, 1, 'only the valid request wrote anything');
    });

    test("refused when the merchant's balance cannot cover it (3005); the fee is not returned", async () => {
      const feeMerchant = await addMerchant(gw, { feeRate: '0.01' });
      const txid = await paid('1000', feeMerchant);
      assert.equal(await payout(feeMerchant.merchantid), 9_900_000n, '1000 − 1% fee');
      const res = await refund({ transactionid: txid, bill_amount: '1000' }, {}, feeMerchant);
      assertError(res, 409, '3005', 'INSUFFICIENT_BALANCE');
      assert.equal(await payout(feeMerchant.merchantid), 9_900_000n);
      assert.equal((await refundRows(txid)).length, 0);
      const fee = await gw.services.ledger.balance({ kind: 'gateway_fee', merchantId: null, currency: 'THB' });
      // A top-up of 10 THB covers it: the merchant bears the whole refund, the fee stays with the gateway.
      const ops = new LedgerOperations({
        store: gw.services.store,
        ledger: gw.services.ledger,
        merchants: gw.services.merchants,
        now: () => gw.clock.now,
      });
      await ops.adjust({
        direction: 'credit',
        merchantId: feeMerchant.merchantid,
        amount: '10',
        currency: 'THB',
        reason: 'top-up for refund',
        idempotencyKey: `topup-${dialect}`,
      });
      const ok = await refund({ transactionid: txid, bill_amount: '1000' }, {}, feeMerchant);
      assert.equal(ok.status, 200, ok.raw);
      assert.equal(await payout(feeMerchant.merchantid), 0n);
      assert.equal(
        await gw.services.ledger.balance({ kind: 'gateway_fee', merchantId: null, currency: 'THB' }),
        fee,
        'fee account untouched',
      );
    });

    test('concurrent refunds never exceed the captured amount; identical concurrent requests refund once', async () => {
      const txid = await paid('100');
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) => refund({ transactionid: txid, bill_amount: '60', reason: `race ${i}` })),
      );
      assert.deepEqual(racing.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409]);
      for (const r of racing.filter((x) => x.status === 409)) assert.equal(r.body.responsecode, '3004');
      assert.equal((await status(txid)).body.refunded_amount, '60.00');

      const same = await Promise.all(
        Array.from({ length: 6 }, () => refund({ transactionid: txid, bill_amount: '5', reason: 'same' })),
      );
      assert.deepEqual(
        same.map((r) => r.status),
        [200, 200, 200, 200, 200, 200],
      );
      assert.equal(new Set(same.map((r) => r.body.refundid)).size, 1);
      assert.equal(same.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 5);
      assert.equal((await refundRows(txid)).length, 2);
      assert.equal((await status(txid)).body.refunded_amount, '65.00');
    });

    test("a request without a trackid is answered the payment's trackid, also on a replay", async () => {
      const p = await startPayment(gw, creds, { bill_amount: '400' });
      await post(gw, '/sandbox/transaction/complete', { ...auth(), transactionid: p.transactionid });
      const first = await refund({ transactionid: p.transactionid, bill_amount: '10' });
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.trackid, p.trackid);
      assert.equal(first.body.reference, null);
      const again = await refund({ transactionid: p.transactionid, bill_amount: '10' });
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.raw, first.raw, 'a replay answers byte for byte');
    });

    test(
      'a refund writes a signed-later refund notification ' + 'to the payment serverUrl, distinct from the result',
      async () => {
        const txid = await paid('250');
        const res = await refund({ transactionid: txid, bill_amount: '20.5', reason: 'shipping', trackid: 'RMA-9' });
        const events = await gw.testStore.db
          .selectFrom('outbox_events')
          .selectAll()
          .where('transaction_id', '=', txid)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        assert.equal(events.length, 2, 'the payment result and the refund');
        const result = events.find((e) => e.refund_id === null)!;
        const refundEvent = events.find((e) => e.refund_id === res.body.refundid)!;
        assert.ok(refundEvent, 'the refund event references its refund');
        assert.equal(refundEvent.target_url, result.target_url);
        const body = JSON.parse(refundEvent.payload);
        const payment = JSON.parse(result.payload);
        assert.equal(body.event_type, 'refund');
        assert.equal(payment.event_type, undefined, 'payment results keep their documented body');
        // A handler that only looks at result/responsecode cannot take it for a payment result.
        assert.notEqual(body.result, 'CAPTURED');
        assert.notEqual(body.result, 'Not Successful');
        assert.notEqual(body.result, 'Processing');
        assert.ok(!['0', '6', '9'].includes(body.responsecode));
        assert.notEqual(Number(body.responsecode), 0, "PHP's loose == 0 is false too");
        assert.deepEqual(
          {
            trackid: body.trackid,
            transactionid: body.transactionid,
            refundid: body.refundid,
            bill_amount: body.bill_amount,
            payment_amount: body.payment_amount,
            refunded_amount: body.refunded_amount,
            refundable_amount: body.refundable_amount,
            reason: body.reason,
            reference: body.reference,
            token: body.token,
            event_id: body.event_id,
          },
          {
            trackid: payment.trackid,
            transactionid: txid,
            refundid: res.body.refundid,
            bill_amount: '20.50',
            payment_amount: '250.00',
            refunded_amount: '20.50',
            refundable_amount: '229.50',
            reason: 'shipping',
            reference: 'RMA-9',
            token: payment.token,
            event_id: refundEvent.id,
          },
        );
      },
    );

    test('the hosted page of a refunded payment says so, in English and Thai (partial, then full)', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      await post(gw, '/sandbox/transaction/complete', { ...auth(), transactionid: p.transactionid });
      const page = async (lang: string) =>
        (await gw.app.inject({ method: 'GET', url: `/transaction/Redirect?ID=${p.redirectId}&lang=${lang}` })).body;
      assert.match(await page('en'), /Payment successful/);
      assert.doesNotMatch(await page('en'), /refunded/i);
      await refund({ transactionid: p.transactionid, bill_amount: '20' });
      const partialEn = await page('en');
      assert.match(partialEn, /Payment refunded/);
      assert.match(partialEn, /The merchant refunded ฿20\.00 of this ฿100\.00 payment\./);
      assert.match(partialEn, /<dd id="refunded">฿20\.00<\/dd>/);
      assert.match(await page('th'), /ร้านค้าได้คืนเงิน ฿20\.00 จากยอดชำระ ฿100\.00 แล้ว/);
      await refund({ transactionid: p.transactionid, bill_amount: '80' });
      assert.match(await page('en'), /refunded this payment in full \(฿100\.00\)/);
      assert.match(await page('th'), /คืนเงินแล้ว/);
      assert.match(await page('th'), /คืนเงินการชำระเงินนี้เต็มจำนวน ฿100\.00/);
    });

    test(
      'a derived key holds 24 hours of the gateway clock: inside them the same request replays, ' +
        'from then on it is a new refund (identical racing requests still refund once); explicit keys never expire',
      async () => {
        const HOUR = 60 * 60 * 1000;
        const txid = await paid('500');
        const body = { transactionid: txid, tranid: txid, bill_amount: '50', reason: 'damaged', trackid: 'b@x.co' };
        const first = await refund(body);
        assert.equal(first.status, 200, first.raw);
        const keyed = await refund({ transactionid: txid, bill_amount: '7' }, { 'idempotency-key': `old-${dialect}` });
        assert.equal(keyed.status, 200, keyed.raw);

        gw.clock.now += 24 * HOUR - 1;
        const inside = await refund(body);
        assert.equal(inside.status, 200, inside.raw);
        assert.equal(inside.headers['idempotent-replayed'], 'true');
        assert.deepEqual(inside.body, first.body);
        assert.equal((await refundRows(txid)).length, 2);

        gw.clock.now += 1;
        const [later, ...racing] = await Promise.all(Array.from({ length: 4 }, () => refund(body)));
        assert.ok(later && [later, ...racing].every((r) => r.status === 200));
        const fresh = [later, ...racing].filter((r) => r.headers['idempotent-replayed'] !== 'true');
        assert.equal(fresh.length, 1, 'the expired key refunds again, once');
        const second = fresh[0]!;
        assert.notEqual(second.body.refundid, first.body.refundid);
        for (const r of racing) assert.equal(r.body.refundid, second.body.refundid);
        assert.equal(second.body.refunded_amount, '107.00');
        assert.equal((await refundRows(txid)).length, 3);
        assert.equal((await status(txid)).body.refunded_amount, '107.00');

        // Three days after the first (two after the second): a third refund, then it replays.
        gw.clock.now += 48 * HOUR;
        const third = await refund(body);
        assert.equal(third.headers['idempotent-replayed'], undefined);
        assert.equal(third.body.refunded_amount, '157.00');
        assert.ok(![first.body.refundid, second.body.refundid].includes(third.body.refundid));
        const thirdAgain = await refund(body);
        assert.equal(thirdAgain.headers['idempotent-replayed'], 'true');
        assert.deepEqual(thirdAgain.body, third.body);

        // An explicit key keeps answering its refund, three days on.
        const keyedAgain = await refund(
          { transactionid: txid, bill_amount: '7' },
          { 'idempotency-key': `old-${dialect}` },
        );
        assert.equal(keyedAgain.headers['idempotent-replayed'], 'true');
        assert.deepEqual(keyedAgain.body, keyed.body);
        assert.equal((await refundRows(txid)).length, 4);
      },
    );

    test(
      'status shows refunded_amount "0.00" without ' + 'refunds; the ledger verifies after all of the above',
      async () => {
        const txid = await paid('100');
        assert.equal((await status(txid)).body.refunded_amount, '0.00');
        const ops = new LedgerOperations({
          store: gw.services.store,
          ledger: gw.services.ledger,
          merchants: gw.services.merchants,
          now: () => gw.clock.now,
        });
        const check = await ops.verify();
        assert.equal(
          check.ok,
          true,
          JSON.stringify(check, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
        );
      },
    );
  });
}
