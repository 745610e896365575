// POST /<ServiceName>InstaPay/QueryPayoutBalance (docs/api.md "Payout balance", "Errors";
// docs/ledger.md) on both stores: exact response shapes, credentials, a disabled merchant, and the
// balance the ledger derives from payments (initiate + sandbox complete) and operator adjustments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  fixture,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { LedgerOperations } from '../../../src/app/ledger-operations.ts';
import { payoutAccount } from '../../../src/domain/ledger.ts';

const PATH = '/GatewayInstaPay/QueryPayoutBalance';

function operations(gw: TestGateway): LedgerOperations {
  const { store, ledger, merchants, now } = gw.services;
  return new LedgerOperations({ store, ledger, merchants, now });
}

/** Initiates a payment and completes it in the sandbox; returns the final status body. */
async function pay(gw: TestGateway, creds: MerchantCredentials, trackid: string, amount: string, outcome?: string) {
  const init = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid, bill_amount: amount }));
  assert.equal(init.body.responsecode, '9', JSON.stringify(init.body));
  const done = await post(gw, '/sandbox/transaction/complete', {
    merchantid: creds.merchantid,
    password: creds.password,
    transactionid: init.body.transactionid,
    ...(outcome && { outcome }),
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return done.body;
}

const balanceOf = async (gw: TestGateway, creds: MerchantCredentials) =>
  (await post(gw, PATH, { merchantid: creds.merchantid, password: creds.password })).body.balanceAmt;

for (const { dialect, skip } of await testDialects()) {
  describe(`payout balance query [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    test('a merchant without postings gets the exact success shape with balanceAmt "0.0000"', async () => {
      const res = await post(gw, PATH, fixture('balance-query.json', creds));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        type: 'valid',
        result: 'Success',
        responsecode: '00',
        merchantid: creds.merchantid,
        token: null,
        error_code_tag: null,
        error_text: 'Success',
        description: 'Success',
        balanceAmt: '0.0000',
        currency: 'THB',
        maskedcard: '9012',
      });
      assert.match(res.raw, /"responsecode":"00"/);
      assert.match(res.raw, /"balanceAmt":"0\.0000"/);
      assert.equal(Object.keys(res.body).length, 11);
    });

    test('wrong password and unknown merchant get the same exact failure shape (401, 1000)', async () => {
      const wrong = await post(gw, PATH, { merchantid: creds.merchantid, password: 'not-the-password' });
      const unknown = await post(gw, PATH, { merchantid: 'NOBODY', password: 'not-the-password' });
      for (const [res, id] of [
        [wrong, creds.merchantid],
        [unknown, 'NOBODY'],
      ] as const) {
        assert.equal(res.status, 401);
        assert.equal(typeof res.body.error_text, 'string');
        assert.ok(res.body.error_text.length > 10);
        assert.deepEqual(res.body, {
          type: 'error',
          result: 'Failed',
          responsecode: '1000',
          merchantid: id,
          token: null,
          error_code_tag: 'INVALID_CREDENTIALS',
          error_text: res.body.error_text,
          description: res.body.error_text,
          balanceAmt: null,
          currency: null,
          maskedcard: null,
        });
      }
      assert.equal(wrong.body.error_text, unknown.body.error_text);
    });

    test('a missing password is MISSING_FIELD (400, 2001) in the balance shape', async () => {
      const res = await post(gw, PATH, { merchantid: creds.merchantid });
      assert.equal(res.status, 400);
      assert.equal(res.body.responsecode, '2001');
      assert.equal(res.body.error_code_tag, 'MISSING_FIELD');
      assert.match(res.body.error_text, /password/);
      assert.equal(res.body.balanceAmt, null);
      assert.equal(res.body.maskedcard, null);
    });

    test('a body that is not JSON is MALFORMED_REQUEST (400, 2000) in the balance shape', async () => {
      const res = await post(gw, PATH, '{"merchantid":');
      assert.equal(res.status, 400);
      assert.equal(res.body.type, 'error');
      assert.equal(res.body.result, 'Failed');
      assert.equal(res.body.responsecode, '2000');
      assert.equal(res.body.currency, null);
    });

    test('a disabled merchant gets 403 MERCHANT_DISABLED (1001)', async () => {
      const shop = await addMerchant(gw);
      await gw.services.manageMerchants.setStatus(shop.merchantid, 'disabled');
      await gw.services.directory.refresh();
      const res = await post(gw, PATH, { merchantid: shop.merchantid, password: shop.password });
      assert.equal(res.status, 403);
      assert.equal(res.body.type, 'error');
      assert.equal(res.body.result, 'Failed');
      assert.equal(res.body.responsecode, '1001');
      assert.equal(res.body.error_code_tag, 'MERCHANT_DISABLED');
      assert.equal(res.body.token, null);
      assert.deepEqual([res.body.balanceAmt, res.body.currency, res.body.maskedcard], [null, null, null]);
    });

    test(
      'a successful payment raises the THB payout balance by ' +
        'amount − half-even fee, and the fee account by the fee',
      async () => {
        const shop = await addMerchant(gw, { feeRate: '0.025' });
        // 100.01 × 2.5 % = 2.50025 → 2.5002 (half-even: tie goes to the even 2); 100.03 × 2.5 % = 2.50075 → 2.5008.
        const feeBefore = await gw.services.ledger.balance({ kind: 'gateway_fee', merchantId: null, currency: 'THB' });
        const first = await pay(gw, shop, 'fee-1', '100.01');
        assert.equal(first.responsecode, '0');
        assert.equal(await balanceOf(gw, shop), '97.5098');
        await pay(gw, shop, 'fee-2', '100.03');
        assert.equal(await balanceOf(gw, shop), '195.0390');
        const feeAfter = await gw.services.ledger.balance({ kind: 'gateway_fee', merchantId: null, currency: 'THB' });
        assert.equal(feeAfter - feeBefore, 25_002n + 25_008n);
        const entry = await gw.services.ledger.findEntryByTransaction(first.transactionid);
        assert.deepEqual(
          entry?.postings.map((p) => [p.kind, p.amountMinor]),
          [
            ['merchant_payout', 975_098n],
            ['gateway_fee', 25_002n],
            ['gateway_clearing', -1_000_100n],
          ],
        );
        assert.equal((await operations(gw).verify()).ok, true);
      },
    );

    test('a failed, cancelled or declined payment posts nothing; completing twice posts once', async () => {
      const shop = await addMerchant(gw);
      const ok = await pay(gw, shop, 'once-1', '150.50');
      await pay(gw, shop, 'fail-1', '200', 'failed');
      await pay(gw, shop, 'cancel-1', '200', 'cancelled');
      await pay(gw, shop, 'declined-1', '15000');
      const again = await post(gw, '/sandbox/transaction/complete', {
        merchantid: shop.merchantid,
        password: shop.password,
        transactionid: ok.transactionid,
      });
      assert.equal(again.status, 409);
      assert.equal(again.body.error_code_tag, 'INVALID_STATE');
      assert.equal(await balanceOf(gw, shop), '150.5000');
      assert.equal(await gw.services.ledger.countEntries({ merchantId: shop.merchantid }), 1);
    });

    test(
      'a PHP payout merchant: THB payments raise its THB ' + 'account, the query reports the PHP account (no FX)',
      async () => {
        const shop = await addMerchant(gw, { payoutCurrency: 'PHP' });
        await pay(gw, shop, 'php-1', '1000');
        const res = await post(gw, PATH, { merchantid: shop.merchantid, password: shop.password });
        assert.equal(res.body.balanceAmt, '0.0000');
        assert.equal(res.body.currency, 'PHP');
        assert.equal(await gw.services.ledger.balance(payoutAccount(shop.merchantid, 'THB')), 10_000_000n);
        await operations(gw).adjust({
          direction: 'credit',
          merchantId: shop.merchantid,
          amount: '12500.5',
          currency: 'PHP',
          reason: 'settlement of THB 1000 converted',
          idempotencyKey: `php-topup-${shop.merchantid}`,
        });
        const after = await post(gw, PATH, { merchantid: shop.merchantid, password: shop.password });
        assert.equal(after.body.balanceAmt, '12500.5000');
        assert.equal(after.body.currency, 'PHP');
        assert.equal(
          await gw.services.ledger.balance(payoutAccount(shop.merchantid, 'THB')),
          10_000_000n,
          'the THB account is untouched',
        );
      },
    );

    test('operator debits lower the reported balance; sub-satang balances print all four digits', async () => {
      const shop = await addMerchant(gw);
      const ops = operations(gw);
      await ops.adjust({
        direction: 'credit',
        merchantId: shop.merchantid,
        amount: '10',
        currency: 'THB',
        reason: 'top-up',
        idempotencyKey: `c-${shop.merchantid}`,
      });
      await ops.adjust({
        direction: 'debit',
        merchantId: shop.merchantid,
        amount: '0.0001',
        currency: 'THB',
        reason: 'adjust',
        idempotencyKey: `d-${shop.merchantid}`,
      });
      assert.equal(await balanceOf(gw, shop), '9.9999');
    });
  });

  describe(`payout balance query under another SERVICE_NAME [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(dialect, { SERVICE_NAME: 'AcmePay' });
    });
    after(() => gw?.close());

    test('the path segment follows SERVICE_NAME; the default path is not served', async () => {
      const creds = await addMerchant(gw);
      const res = await post(gw, '/AcmePayInstaPay/QueryPayoutBalance', {
        merchantid: creds.merchantid,
        password: creds.password,
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.responsecode, '00');
      assert.equal(res.body.balanceAmt, '0.0000');
      const old = await post(gw, PATH, { merchantid: creds.merchantid, password: creds.password });
      assert.equal(old.status, 404);
      assert.equal(old.body.responsecode, '3001');
    });
  });
}
