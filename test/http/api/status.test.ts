// POST /transaction/status (docs/api.md "Status"): a merchant reads one of its own transactions by
// transactionid or trackid, before and after it reached its final state.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { assertErrorBody, STATUS_KEYS } from '../../support/error-body.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const { dialect, skip } of await testDialects()) {
  describe(`transaction status [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let serial = 0;

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    async function initiate(overrides: Record<string, unknown> = {}, c: MerchantCredentials = creds) {
      const res = await post(gw, '/transaction/s2s', initiationBody(c, { trackid: `st-${++serial}`, ...overrides }));
      assert.equal(res.status, 200, res.raw);
      return res.body;
    }

    const status = (ref: Record<string, unknown>, c: MerchantCredentials = creds) =>
      post(gw, '/transaction/status', { merchantid: c.merchantid, password: c.password, ...ref });

    const complete = (transactionid: string, outcome?: string) =>
      post(gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid,
        ...(outcome && { outcome }),
      });

    test('a new transaction: Processing, 9, amount and currency, created_at, no completed_at', async () => {
      const createdAt = new Date(gw.clock.now).toISOString();
      const started = await initiate({ bill_amount: '1000' });
      const res = await status({ transactionid: started.transactionid });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), [...STATUS_KEYS].sort());
      assert.equal(res.body.type, 'valid');
      assert.equal(res.body.result, 'Processing');
      assert.equal(res.body.responsecode, '9');
      assert.match(res.raw, /"responsecode":"9"/);
      assert.equal(res.body.trackid, started.trackid);
      assert.equal(res.body.merchantid, creds.merchantid);
      assert.equal(res.body.transactionid, started.transactionid);
      assert.equal(res.body.token, started.token);
      assert.equal(res.body.redirectUrl, started.redirectUrl);
      assert.equal(res.body.bill_amount, '1000.00');
      assert.equal(res.body.bill_currencycode, 'THB');
      assert.equal(res.body.error_code_tag, null);
      assert.equal(res.body.error_text, null);
      assert.match(res.body.created_at, ISO_UTC);
      assert.equal(res.body.created_at, createdAt);
      assert.equal(res.body.completed_at, null);
    });

    test('by trackid gives the same answer as by transactionid', async () => {
      const started = await initiate({ bill_amount: 150.5 });
      const byId = await status({ transactionid: started.transactionid });
      const byTrack = await status({ trackid: started.trackid });
      assert.equal(byTrack.status, 200);
      assert.equal(byTrack.raw, byId.raw);
      assert.equal(byTrack.body.bill_amount, '150.50');
    });

    test('after a successful sandbox completion: CAPTURED, 0, completed_at set', async () => {
      const started = await initiate({ bill_amount: '1000.00' });
      gw.clock.now += 42_000;
      const completedAt = new Date(gw.clock.now).toISOString();
      const done = await complete(started.transactionid);
      assert.equal(done.status, 200, done.raw);
      for (const res of [
        await status({ transactionid: started.transactionid }),
        await status({ trackid: started.trackid }),
      ]) {
        assert.equal(res.status, 200);
        assert.equal(res.body.type, 'valid');
        assert.equal(res.body.result, 'CAPTURED');
        assert.equal(res.body.responsecode, '0');
        assert.equal(res.body.transactionid, started.transactionid);
        assert.equal(res.body.token, started.token);
        assert.equal(res.body.bill_amount, '1000.00');
        assert.equal(res.body.bill_currencycode, 'THB');
        assert.equal(res.body.error_code_tag, null);
        assert.equal(res.body.error_text, null);
        assert.match(res.body.created_at, ISO_UTC);
        assert.equal(res.body.completed_at, completedAt);
        assert.ok(res.body.completed_at > res.body.created_at);
      }
    });

    test('after a declined sandbox completion (15000 THB): Not Successful, 6, DECLINED with a sentence', async () => {
      const started = await initiate({ bill_amount: 15000 });
      gw.clock.now += 1000;
      assert.equal((await complete(started.transactionid)).status, 200);
      const res = await status({ trackid: started.trackid });
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'valid');
      assert.equal(res.body.result, 'Not Successful');
      assert.equal(res.body.responsecode, '6');
      assert.equal(res.body.error_code_tag, 'DECLINED');
      assert.equal(typeof res.body.error_text, 'string');
      assert.ok(res.body.error_text.length > 10);
      assert.equal(res.body.bill_amount, '15000.00');
      assert.match(res.body.completed_at, ISO_UTC);
    });

    test('the sandbox amount rule at its edge: 10000 and 9999.99 succeed, 10000.01 fails', async () => {
      for (const [amount, code, result] of [
        ['10000', '0', 'CAPTURED'],
        ['9999.99', '0', 'CAPTURED'],
        ['10000.01', '6', 'Not Successful'],
      ] as const) {
        const started = await initiate({ bill_amount: amount });
        await complete(started.transactionid);
        const res = await status({ transactionid: started.transactionid });
        assert.equal(res.body.responsecode, code, amount);
        assert.equal(res.body.result, result, amount);
        assert.equal(res.body.bill_amount, amount.includes('.') ? amount : `${amount}.00`);
      }
    });

    test('cancelled and expired outcomes show their tags', async () => {
      for (const [outcome, tag] of [
        ['cancelled', 'CANCELLED'],
        ['expired', 'EXPIRED'],
        ['failed', 'DECLINED'],
      ] as const) {
        const started = await initiate();
        await complete(started.transactionid, outcome);
        const res = await status({ transactionid: started.transactionid });
        assert.equal(res.body.responsecode, '6', outcome);
        assert.equal(res.body.result, 'Not Successful', outcome);
        assert.equal(res.body.error_code_tag, tag, outcome);
        assert.ok(res.body.error_text, outcome);
      }
    });

    test('a merchant sees only its own transactions, by id and by trackid', async () => {
      const other = await addMerchant(gw);
      const mine = await initiate({ trackid: 'shared-order-1', bill_amount: '200' });
      const theirs = await initiate({ trackid: 'shared-order-1', bill_amount: '300' }, other);
      const myView = await status({ trackid: 'shared-order-1' });
      const theirView = await status({ trackid: 'shared-order-1' }, other);
      assert.equal(myView.body.transactionid, mine.transactionid);
      assert.equal(myView.body.bill_amount, '200.00');
      assert.equal(theirView.body.transactionid, theirs.transactionid);
      assert.equal(theirView.body.bill_amount, '300.00');
      const crossed = await status({ transactionid: theirs.transactionid });
      assertErrorBody(crossed, { status: 404, code: '3001', tag: 'NOT_FOUND', shape: 'status' });
    });

    test('when both are given, transactionid decides', async () => {
      const a = await initiate();
      const b = await initiate();
      const res = await status({ transactionid: a.transactionid, trackid: b.trackid });
      assert.equal(res.body.transactionid, a.transactionid);
    });

    test('neither transactionid nor trackid → MISSING_FIELD; a non-string reference → INVALID_FIELD', async () => {
      assertErrorBody(await status({}), {
        status: 400,
        code: '2001',
        tag: 'MISSING_FIELD',
        field: 'transactionid',
        shape: 'status',
      });
      assertErrorBody(await status({ transactionid: '', trackid: null }), {
        status: 400,
        code: '2001',
        tag: 'MISSING_FIELD',
        field: 'transactionid',
        shape: 'status',
      });
      assertErrorBody(await status({ transactionid: 12 }), {
        status: 400,
        code: '2002',
        tag: 'INVALID_FIELD',
        field: 'transactionid',
        shape: 'status',
      });
      assertErrorBody(await status({ trackid: ['a'] }), {
        status: 400,
        code: '2002',
        tag: 'INVALID_FIELD',
        field: 'trackid',
        shape: 'status',
      });
    });

    test('wrong credentials → 401 in the status shape, echoing the reference', async () => {
      const started = await initiate();
      const res = await post(gw, '/transaction/status', {
        merchantid: creds.merchantid,
        password: 'nope',
        transactionid: started.transactionid,
      });
      assertErrorBody(res, {
        status: 401,
        code: '1000',
        tag: 'INVALID_CREDENTIALS',
        shape: 'status',
        merchantid: creds.merchantid,
      });
      assert.equal(res.body.transactionid, started.transactionid);
      assert.equal(res.body.bill_amount, null);
      assert.equal(res.body.created_at, null);
    });

    test('reading the status changes nothing', async () => {
      const started = await initiate();
      const first = await status({ transactionid: started.transactionid });
      gw.clock.now += 5000;
      const again = await status({ transactionid: started.transactionid });
      assert.equal(again.raw, first.raw);
    });
  });
}
