// POST /sandbox/transaction/complete (docs/api.md "Sandbox completion") on both stores: the amount
// rule at its edges, the outcome override, errors in the status shape, INVALID_STATE on a second
// call, concurrent calls, and 404 in live mode.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { snapshot, startPayment } from '../../support/lifecycle.ts';

const STATUS_KEYS = [
  'type',
  'result',
  'responsecode',
  'trackid',
  'merchantid',
  'redirectUrl',
  'token',
  'transactionid',
  'error_code_tag',
  'error_text',
  'bill_amount',
  'bill_currencycode',
  'created_at',
  'completed_at',
  'refunded_amount',
].sort();

for (const { dialect, skip } of await testDialects()) {
  describe(`sandbox completion API [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const complete = (body: Record<string, unknown>) =>
      post(gw, '/sandbox/transaction/complete', { merchantid: creds.merchantid, password: creds.password, ...body });

    for (const [amount, responsecode, result, tag] of [
      ['100', '0', 'CAPTURED', null],
      ['9999.99', '0', 'CAPTURED', null],
      ['10000', '0', 'CAPTURED', null],
      ['10000.01', '6', 'Not Successful', 'DECLINED'],
      ['15000', '6', 'Not Successful', 'DECLINED'],
    ] as const) {
      test(`${amount} THB → ${responsecode} ${result}`, async () => {
        const p = await startPayment(gw, creds, { bill_amount: amount });
        const res = await complete({ transactionid: p.transactionid });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), STATUS_KEYS);
        assert.equal(res.body.type, 'valid');
        assert.equal(res.body.responsecode, responsecode);
        assert.equal(res.body.result, result);
        assert.equal(res.body.error_code_tag, tag);
        assert.equal(res.body.transactionid, p.transactionid);
        assert.equal(res.body.trackid, p.trackid);
        assert.notEqual(res.body.completed_at, null);
        assert.equal(res.body.redirectUrl, null, 'a final transaction has no page to send the customer to');
        const status = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: p.transactionid,
        });
        assert.equal(status.body.responsecode, responsecode);
      });
    }

    test('the string-amount fixture (9999.99) completes with 0', async () => {
      const p = await startPayment(gw, creds, {});
      assert.equal((await complete({ transactionid: p.transactionid })).body.responsecode, '0');
    });

    for (const [outcome, responsecode, tag] of [
      ['success', '0', null],
      ['failed', '6', 'DECLINED'],
      ['cancelled', '6', 'CANCELLED'],
      ['expired', '6', 'EXPIRED'],
    ] as const) {
      test(`outcome '${outcome}' overrides the amount rule`, async () => {
        const p = await startPayment(gw, creds, { bill_amount: outcome === 'success' ? '15000' : '100' });
        const res = await complete({ transactionid: p.transactionid, outcome });
        assert.equal(res.status, 200);
        assert.equal(res.body.responsecode, responsecode);
        assert.equal(res.body.error_code_tag, tag);
        const s = await snapshot(gw, p.transactionid);
        assert.equal(s.transitions[0]?.cause, 'sandbox');
      });
    }

    test('a second completion → 409 INVALID_STATE in the status shape, nothing changed', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      await complete({ transactionid: p.transactionid });
      const before = await snapshot(gw, p.transactionid);
      const again = await complete({ transactionid: p.transactionid, outcome: 'failed' });
      assert.equal(again.status, 409);
      assert.deepEqual(Object.keys(again.body).sort(), STATUS_KEYS);
      assert.equal(again.body.type, 'error');
      assert.equal(again.body.responsecode, '3002');
      assert.equal(again.body.error_code_tag, 'INVALID_STATE');
      assert.equal(again.body.transactionid, p.transactionid);
      assert.deepEqual(await snapshot(gw, p.transactionid), before);
    });

    test('concurrent API completions: one 200, the rest 409, one transition and one outbox row', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          complete({ transactionid: p.transactionid, ...(i % 2 ? { outcome: 'cancelled' } : {}) }),
        ),
      );
      assert.deepEqual(responses.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409]);
      const s = await snapshot(gw, p.transactionid);
      assert.equal(s.transitions.length, 1);
      assert.equal(s.outbox.length, 1);
    });

    test(
      'errors: unknown id 404, another merchant 404, ' + 'bad outcome 400, missing id 400, bad password 401',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '100' });
        const unknown = await complete({ transactionid: '01900000-0000-7000-8000-000000000000' });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.error_code_tag, 'NOT_FOUND');
        assert.equal(unknown.body.responsecode, '3001');

        const other = await addMerchant(gw);
        const foreign = await post(gw, '/sandbox/transaction/complete', {
          merchantid: other.merchantid,
          password: other.password,
          transactionid: p.transactionid,
        });
        assert.equal(foreign.status, 404);

        const badOutcome = await complete({ transactionid: p.transactionid, outcome: 'maybe' });
        assert.equal(badOutcome.status, 400);
        assert.equal(badOutcome.body.error_code_tag, 'INVALID_FIELD');
        assert.match(badOutcome.body.error_text, /outcome/);

        const missing = await complete({});
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error_code_tag, 'MISSING_FIELD');

        const badPassword = await post(gw, '/sandbox/transaction/complete', {
          merchantid: creds.merchantid,
          password: 'wrong',
          transactionid: p.transactionid,
        });
        assert.equal(badPassword.status, 401);
        assert.equal((await snapshot(gw, p.transactionid)).status, 'PROCESSING', 'no failed call changed anything');
      },
    );

    test('after the TTL a completion without override ends as EXPIRED', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      gw.clock.now += gw.config.transactionTtlMs;
      const res = await complete({ transactionid: p.transactionid });
      assert.equal(res.body.responsecode, '6');
      assert.equal(res.body.error_code_tag, 'EXPIRED');
    });
  });

  describe(`sandbox completion API in live mode [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(dialect, { GATEWAY_MODE: 'live', PUBLIC_BASE_URL: 'https://pay.example' });
    });
    after(() => gw?.close());

    test('answers 404 NOT_FOUND in the API error shape', async () => {
      const res = await post(gw, '/sandbox/transaction/complete', {
        merchantid: 'm',
        password: 'p',
        transactionid: 'x',
      });
      assert.equal(res.status, 404);
      assert.deepEqual(Object.keys(res.body).sort(), STATUS_KEYS);
      assert.equal(res.body.type, 'error');
      assert.equal(res.body.result, 'Not Successful');
      assert.equal(res.body.responsecode, '3001');
      assert.equal(res.body.error_code_tag, 'NOT_FOUND');
      assert.match(res.body.error_text, /live mode/);
    });
  });
}
