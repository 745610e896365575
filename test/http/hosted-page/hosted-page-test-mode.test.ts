// The hosted page says when it is a test: in sandbox mode the payment and the result page carry
// a "TEST (sandbox)" banner and a [TEST] title; in live mode neither. The deadline shows date,
// time and zone; the payment page offers Save QR with the same-device hint in its language.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDeadline } from '../../../src/http/hosted-page/page-view.ts';
import {
  addMerchant,
  findByRedirectId,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { startPayment } from '../../support/lifecycle.ts';
import { startLiveGateway } from '../../support/live-gateway.ts';

for (const mode of ['sandbox', 'live'] as const) {
  describe(`hosted page test marking [${mode}]`, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      if (mode === 'live') {
        // Live mode runs a bank connector: KBank on kbank-sim.
        const live = await startLiveGateway('sqlite');
        gw = live;
        creds = live.creds;
        return;
      }
      gw = await startTestGateway('sqlite', { GATEWAY_MODE: mode, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' });
      creds = await addMerchant(gw);
    });
    after(async () => gw?.close());

    const page = async (path: string) => (await gw.app.inject({ method: 'GET', url: path })).body;

    test('payment page: banner and title only in sandbox; Save QR, hint and a dated deadline always', async () => {
      const p = await startPayment(gw, creds, mode === 'live' ? { serverUrl: 'https://merchant.example/notify' } : {});
      const id = p.redirectId;
      const t = await findByRedirectId(gw, id);
      for (const [lang, banner, hint, deadline] of [
        [
          'en',
          'TEST (sandbox) — no real money moves',
          'Paying on this phone? Save the QR and open it in your banking app.',
          `Expires at ${formatDeadline(t!.expiresAt, 'en')}`,
        ],
        [
          'th',
          'โหมดทดสอบ (Sandbox) — ไม่มีการตัดเงินจริง',
          'ชำระเงินบนมือถือเครื่องนี้? บันทึก QR แล้วเปิดรูปนั้นในแอปธนาคารของคุณ',
          `หมดอายุเวลา ${formatDeadline(t!.expiresAt, 'th')}`,
        ],
      ] as const) {
        const html = await page(`/transaction/Redirect?ID=${id}&lang=${lang}`);
        assert.equal(html.includes(banner), mode === 'sandbox', `${lang} banner`);
        assert.equal(/<title>\[TEST\] /.test(html), mode === 'sandbox', `${lang} title`);
        assert.ok(html.includes(hint), `${lang} same-device hint`);
        assert.ok(html.includes(deadline), `${lang} deadline`);
        assert.match(html, /id="save-qr" href="[^"]*\/transaction\/Redirect\/qr\.png\?ID=[^"]+" download/);
      }
      assert.match(formatDeadline(t!.expiresAt, 'en'), /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} ICT$/);
    });

    if (mode === 'sandbox') {
      test('the result page of a sandbox payment is marked as a test too', async () => {
        const p = await startPayment(gw, creds);
        assert.equal(
          (
            await post(gw, '/sandbox/transaction/complete', {
              merchantid: creds.merchantid,
              password: creds.password,
              transactionid: p.transactionid,
            })
          ).status,
          200,
        );
        const html = await page(`/transaction/Redirect?ID=${p.redirectId}&lang=en`);
        assert.match(html, /id="result-title"/);
        assert.ok(html.includes('TEST (sandbox) — no real money moves'));
        assert.match(html, /<title>\[TEST\] Payment successful/);
      });
    }
  });
}
