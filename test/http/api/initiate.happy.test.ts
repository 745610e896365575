// POST /transaction/s2s — successful initiations, fixtures, idempotency (docs/api.md "Initiation").
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

for (const { dialect, skip } of await testDialects()) {
  describe(`initiation happy path [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    test('the WooCommerce fixture is accepted: valid, Processing, 9', async () => {
      const res = await post(gw, '/transaction/s2s', fixture('woocommerce-thai-debit.json', creds));
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'valid');
      assert.equal(res.body.result, 'Processing');
      assert.equal(res.body.responsecode, '9');
      assert.equal(res.body.trackid, '4711_1763700000');
      assert.equal(res.body.merchantid, creds.merchantid);
      assert.equal(res.body.error_code_tag, null);
      assert.equal(res.body.error_text, null);
      assert.match(res.body.transactionid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(res.body.token, /^[A-Za-z0-9_-]{43,}$/);
      const redirect = new URL(res.body.redirectUrl);
      assert.equal(`${redirect.origin}${redirect.pathname}`, 'http://127.0.0.1:8080/transaction/Redirect');
      const id = redirect.searchParams.get('ID')!;
      assert.ok(id.length >= 22 && id !== res.body.token && id !== res.body.transactionid);
      const stored = await gw.services.transactions.findById(creds.merchantid, res.body.transactionid);
      assert.equal(stored?.amountMinor, 1_500_000n, '150.0 is stored as exactly 150 THB');
      assert.equal(stored?.payerAccountName, 'สมชาย ใจดี');
      assert.equal(stored?.productdesc, 'Order #4711 from Example Shop');
      assert.equal(stored?.lang, 'en');
    });

    test(
      'the string-amount fixture is accepted and normalised ' + '(country upper-case, bank short name → code)',
      async () => {
        const res = await post(gw, '/transaction/s2s', fixture('string-amount.json', creds));
        assert.equal(res.status, 200);
        assert.equal(res.body.responsecode, '9');
        const stored = await gw.services.transactions.findById(creds.merchantid, res.body.transactionid);
        assert.equal(stored?.amountMinor, 99_999_900n);
        assert.equal(stored?.billCountry, 'TH');
        assert.equal(stored?.payerBankCode, '004');
        assert.equal(stored?.billCustomerIp, '2001:db8::42');
      },
    );

    test('the docs sample (amount 1) is refused with AMOUNT_TOO_LOW', async () => {
      const res = await post(gw, '/transaction/s2s', fixture('docs-sample.json', creds));
      assert.equal(res.status, 400);
      assert.equal(res.body.type, 'error');
      assert.equal(res.body.result, 'Not Successful');
      assert.equal(res.body.responsecode, '2003');
      assert.equal(res.body.error_code_tag, 'AMOUNT_TOO_LOW');
      assert.match(res.body.error_text, /bill_amount/);
      assert.equal(res.body.trackid, '10012024');
      assert.equal(res.body.merchantid, creds.merchantid);
      assert.equal(res.body.transactionid, null);
      assert.equal(res.body.redirectUrl, null);
      assert.equal(res.body.token, null);
    });

    test('an identical retry replays the original response with Idempotent-Replayed: true', async () => {
      const body = initiationBody(creds, { trackid: 'idem-1' });
      const first = await post(gw, '/transaction/s2s', body);
      const again = await post(gw, '/transaction/s2s', body);
      assert.equal(first.status, 200);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(again.status, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.raw, first.raw);
    });

    test(
      'same content in another spelling (number vs string ' +
        'amount, lower-case country, bank name) is the same request',
      async () => {
        const first = await post(
          gw,
          '/transaction/s2s',
          initiationBody(creds, {
            trackid: 'idem-2',
            bill_amount: '150.50',
            bill_country: 'th',
            payer_bank_code: 'KBANK',
            lang: 'xx',
          }),
        );
        const again = await post(
          gw,
          '/transaction/s2s',
          initiationBody(creds, {
            trackid: 'idem-2',
            bill_amount: 150.5,
            bill_country: 'TH',
            payer_bank_code: '004',
            extra: 'ignored',
          }),
        );
        assert.equal(again.status, 200);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.body.transactionid, first.body.transactionid);
      },
    );

    test(
      'the same trackid with different content is refused ' + 'with 409 DUPLICATE_TRACKID and changes nothing',
      async () => {
        const first = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: 'idem-3' }));
        const clash = await post(
          gw,
          '/transaction/s2s',
          initiationBody(creds, { trackid: 'idem-3', bill_amount: '200' }),
        );
        assert.equal(clash.status, 409);
        assert.equal(clash.body.responsecode, '3000');
        assert.equal(clash.body.error_code_tag, 'DUPLICATE_TRACKID');
        assert.match(clash.body.error_text, /trackid/);
        const stored = await gw.services.transactions.findByTrackid(creds.merchantid, 'idem-3');
        assert.equal(stored?.id, first.body.transactionid);
        assert.equal(stored?.amountMinor, 99_999_900n);
      },
    );

    test('the same trackid at another merchant is a different transaction', async () => {
      const other = await addMerchant(gw);
      const a = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: 'shared-track' }));
      const b = await post(gw, '/transaction/s2s', initiationBody(other, { trackid: 'shared-track' }));
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.notEqual(a.body.transactionid, b.body.transactionid);
    });

    test('racing identical requests create exactly one transaction and all get the same body', async () => {
      const body = JSON.stringify(initiationBody(creds, { trackid: 'race-1' }));
      const responses = await Promise.all(Array.from({ length: 12 }, () => post(gw, '/transaction/s2s', body)));
      const ids = new Set(responses.map((r) => r.body.transactionid));
      assert.equal(ids.size, 1);
      assert.ok(responses.every((r) => r.status === 200 && r.body.responsecode === '9'));
      assert.equal(responses.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1);
      const count = await gw.testStore.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('trackid', '=', 'race-1')
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
    });

    test('responsecode is always a JSON string', async () => {
      const res = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: 'string-code' }));
      assert.match(res.raw, /"responsecode":"9"/);
    });
  });
}
