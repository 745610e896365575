// "Save QR": GET /transaction/Redirect/qr.png — the open payment's QR as a PNG download that a
// QR decoder (jsQR over pngjs, independent of the encoder) reads back as the same Thai QR payload
// the page shows; only while the payment is open; no payer data in it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyThaiQrPayload, thaiQrReferenceFor } from '../../../src/domain/thai-qr.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { decodeQrPng } from '../../support/qr-decode.ts';
import { startPayment } from '../../support/lifecycle.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`Save QR PNG [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;

    before(async () => {
      gw = await startTestGateway(dialect, { GATEWAY_MODE: 'sandbox' });
      creds = await addMerchant(gw);
    });
    after(async () => gw?.close());

    const get = (url: string) => gw.app.inject({ method: 'GET', url });

    test(
      'an open payment: a PNG attachment that decodes to ' + 'its Thai QR payload, no payer data, not cacheable',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '1234.50' });
        const res = await get(`/transaction/Redirect/qr.png?ID=${p.redirectId}`);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'image/png');
        assert.equal(res.headers['content-disposition'], 'attachment; filename="thai-qr-payment.png"');
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.headers['referrer-policy'], 'no-referrer');

        const decoded = decodeQrPng(res.rawPayload);
        assert.deepEqual([decoded.width, decoded.height], [640, 640]);
        assert.ok(decoded.text, 'the PNG holds a readable QR code');
        const qr = verifyThaiQrPayload(decoded.text);
        assert.deepEqual(qr.errors, []);
        assert.equal(qr.fields['54'], '1234.50', 'the amount');
        assert.equal(qr.billPayment['02'], thaiQrReferenceFor(p.transactionid), 'reference 1 is this transaction');
        for (const pii of ['Malee', 'Srisuk', '0987654321', 'buyer@example.com', '2001:db8::42'])
          assert.ok(!decoded.text.includes(pii), pii);

        // The page's inline SVG encodes the same payload (its path data comes from the same text).
        const page = await get(p.redirectUrl.replace('http://127.0.0.1:8080', ''));
        assert.match(page.body, new RegExp(`href="/transaction/Redirect/qr\\.png\\?ID=${p.redirectId}" download`));
        const again = await get(`/transaction/Redirect/qr.png?ID=${p.redirectId}`);
        assert.ok(again.rawPayload.equals(res.rawPayload), 'the same bytes again (cached render)');
      },
    );

    test('404 for unknown or malformed IDs, a final payment, and a payment past its deadline', async () => {
      assert.equal((await get('/transaction/Redirect/qr.png?ID=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode, 404);
      assert.equal((await get('/transaction/Redirect/qr.png?ID=../../etc')).statusCode, 404);
      assert.equal((await get('/transaction/Redirect/qr.png')).statusCode, 404);

      const done = await startPayment(gw, creds);
      const completed = await post(gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: done.transactionid,
      });
      assert.equal(completed.status, 200);
      const final = await get(`/transaction/Redirect/qr.png?ID=${done.redirectId}`);
      assert.equal(final.statusCode, 404);
      assert.match(final.headers['content-type'] as string, /^text\/html/);

      const late = await startPayment(gw, creds);
      assert.equal((await get(`/transaction/Redirect/qr.png?ID=${late.redirectId}`)).statusCode, 200);
      gw.clock.now += gw.config.transactionTtlMs;
      assert.equal((await get(`/transaction/Redirect/qr.png?ID=${late.redirectId}`)).statusCode, 404);
    });
  });
}
