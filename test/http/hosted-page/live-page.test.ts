// The hosted page in live mode (docs/hosted-page.md "Live mode", docs/connectors/kbank.md "What the
// customer sees"), against kbank-sim on both stores: the first view creates the bank's QR once and
// shows it verbatim with its issuer, no Confirm, a countdown to the earlier deadline; Save QR is
// the same QR; the bank down gives a 503 page in Thai and English with a retry and the payment
// stays open; Cancel closes the QR at the bank first (a customer who paid first ends SUCCESS);
// the status poll picks up the bank's PAID and hands the customer back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderQrSvg } from '../../../src/http/hosted-page/qr-svg.ts';
import { formatDeadline } from '../../../src/http/hosted-page/page-view.ts';
import { verifyThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import { testDialects } from '../../support/dialects.ts';
import { formSecrets, get, postForm, type Page } from '../../support/hosted-page-form.ts';
import { decodeQrPng } from '../../support/qr-decode.ts';
import { startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';
import type { Started } from '../../support/lifecycle.ts';

const REQUEST_PATH = '/v1/qrpayment/request';
const CANCEL_PATH = '/v1/qrpayment/cancel';
const pageUrl = (p: Started, lang = 'en'): string => `/transaction/Redirect?ID=${p.redirectId}&lang=${lang}`;
const svgOf = (page: Page): string => {
  const svg = /<svg[\s\S]*?<\/svg>/.exec(page.body)?.[0];
  assert.ok(svg, 'the page shows a QR');
  return svg.replace(/ aria-label="[^"]*"/, '');
};

for (const { dialect, skip } of await testDialects()) {
  describe(`hosted page in live mode with KBank [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    before(async () => {
      gw = await startLiveGateway(dialect);
    });
    after(() => gw?.close());

    /** Polls the page's status route until the payment is final (the callback is handled after its answer). */
    const finalStatus = async (p: Started): Promise<{ state: string; returnUrl: string | null }> => {
      for (let i = 0; i < 100; i++) {
        const res = await get(gw, `/transaction/Redirect/status?ID=${p.redirectId}`);
        const body = JSON.parse(res.body) as { state: string; returnUrl: string | null };
        if (body.state !== 'PROCESSING') return body;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('the payment stayed PROCESSING');
    };

    test("the first view creates the bank's QR once and shows it verbatim, with its issuer, no Confirm", async () => {
      const p = await gw.start({ bill_amount: '1234.50', lang: 'en' });
      assert.equal(gw.bankCalls(REQUEST_PATH), 0, 'initiation does not call the bank');
      const page = await get(gw, pageUrl(p));
      assert.equal(page.status, 200);
      const [attempt, ...more] = await gw.attempts(p);
      assert.ok(attempt && more.length === 0, 'one QR attempt');
      assert.equal(attempt.state, 'requested');
      const verified = verifyThaiQrPayload(attempt.qrPayload!);
      assert.ok(verified.ok, 'the stored QR verifies');
      assert.equal(verified.fields['54'], '1234.50');
      assert.equal(svgOf(page), (await renderQrSvg(attempt.qrPayload!)).replace(/ aria-label="[^"]*"/, ''));
      assert.match(page.body, /QR issued by KBank\. Any Thai banking app can pay it\./);
      assert.doesNotMatch(page.body, /id="confirm"|TEST \(sandbox\)/);
      assert.match(page.body, /id="cancel"/);
      assert.match(page.body, /Waiting for your bank to confirm/);
      // Again, and in Thai: the same QR, no second request to the bank.
      const thai = await get(gw, pageUrl(p, 'th'));
      assert.match(thai.body, /QR นี้ออกโดย KBank/);
      assert.equal(svgOf(thai), svgOf(page));
      assert.equal(gw.bankCalls(REQUEST_PATH), 1);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
    });

    test("the countdown runs to the earlier of the payment's and the bank QR's deadline", async () => {
      const p = await gw.start({ lang: 'en' });
      const t = await gw.transaction(p);
      // The customer looks 4 minutes later: KBank's QR (10 minutes) outlives the payment's.
      gw.advance(4 * 60_000);
      const later = await get(gw, pageUrl(p));
      const attempt = (await gw.attempts(p))[0]!;
      assert.ok(attempt.expiresAt! > t.expiresAt);
      assert.match(later.body, new RegExp(`data-remaining-ms="${t.expiresAt - gw.clock.now}"`));
      assert.ok(later.body.includes(`Expires at ${formatDeadline(t.expiresAt, 'en')}`));
    });

    test('Save QR downloads the same bank QR the page shows', async () => {
      const p = await gw.start();
      await get(gw, pageUrl(p));
      const png = await gw.app.inject({ method: 'GET', url: `/transaction/Redirect/qr.png?ID=${p.redirectId}` });
      assert.equal(png.statusCode, 200);
      assert.equal(decodeQrPng(png.rawPayload).text, (await gw.attempts(p))[0]!.qrPayload);
      assert.equal(gw.bankCalls(REQUEST_PATH, (await gw.attempts(p))[0]!.reference), 1);
    });

    test('the bank down at the first view: a 503 page in Thai and English with a retry; later the QR', async () => {
      const p = await gw.start({ lang: 'th' });
      gw.sim.faults({ endpoint: 'request', fault: 'http500', count: 1 });
      gw.sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 50 });
      const down = await get(gw, `/transaction/Redirect?ID=${p.redirectId}`);
      assert.equal(down.status, 503);
      assert.equal(down.headers['retry-after'], '5');
      assert.match(String(down.headers['content-type']), /^text\/html/);
      assert.match(down.body, /ธนาคารยังไม่ตอบกลับในขณะนี้/);
      assert.match(down.body, /The bank is not answering right now/);
      assert.match(down.body, /Your payment is still open and nothing has changed/);
      assert.match(down.body, new RegExp(`href="[^"]*/transaction/Redirect\\?ID=${p.redirectId}&amp;lang=th"`));
      assert.doesNotMatch(down.body, /KBank|HTTP 500|Error:/, 'no internals');
      // Still down (the unanswered create cannot be settled yet): the same page, still open.
      assert.equal((await get(gw, pageUrl(p))).status, 503);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
      gw.sim.clearFaults();
      const page = await get(gw, pageUrl(p));
      assert.equal(page.status, 200);
      const attempts = await gw.attempts(p);
      const live = attempts.filter((a) => a.state === 'requested');
      assert.equal(live.length, 1, 'one QR the customer can pay');
      assert.equal(svgOf(page), (await renderQrSvg(live[0]!.qrPayload!)).replace(/ aria-label="[^"]*"/, ''));
    });

    test('Cancel closes the QR at the bank, then the payment: FAILED/CANCELLED, back to the shop', async () => {
      const p = await gw.start({ lang: 'en' });
      const page = await get(gw, pageUrl(p));
      const { cookie, csrf } = formSecrets(page);
      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303);
      assert.match(String(res.headers.location), /result=Not%20Successful&responsecode=6/);
      const attempt = (await gw.attempts(p))[0]!;
      assert.equal(gw.bankCalls(CANCEL_PATH, attempt.reference), 1);
      assert.equal(attempt.state, 'cancelled');
      const t = await gw.transaction(p);
      assert.equal(t.status, 'FAILED');
      assert.equal(t.errorCodeTag, 'CANCELLED');
      assert.equal(gw.sim.pay(attempt.reference).ok, false, 'the closed QR can no longer be paid');
    });

    test('paid at the bank, then Cancel pressed: the payment ends SUCCESS and the shop gets CAPTURED', async () => {
      const p = await gw.start({ lang: 'en' });
      const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
      await gw.pay((await gw.attempts(p))[0]!.reference); // its callback is never sent
      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303);
      assert.match(String(res.headers.location), /result=CAPTURED/);
      assert.equal((await gw.transaction(p)).status, 'SUCCESS');
    });

    test('Cancel while the bank is down: a 503 page, nothing changes, the QR can still be paid', async () => {
      const p = await gw.start({ lang: 'en' });
      const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
      gw.sim.faults({ endpoint: 'cancel', fault: 'http500', count: 50 });
      gw.sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 50 });
      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      gw.sim.clearFaults();
      assert.equal(res.status, 503);
      assert.match(res.body, /The bank is not answering right now/);
      assert.match(res.body, /Back to the payment page|Try again/);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
      assert.equal(gw.sim.pay((await gw.attempts(p))[0]!.reference).ok, true);
    });

    test("Confirm is not offered and not taken: the bank's QR is paid in a banking app", async () => {
      const p = await gw.start({ lang: 'en' });
      const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
      const res = await postForm(gw, '/transaction/Redirect/confirm', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 404);
      assert.match(res.body, /Payment page not found/);
      assert.equal((await gw.transaction(p)).status, 'PROCESSING');
    });

    test("the status poll picks up the bank's PAID and hands the customer back", async () => {
      const p = await gw.start({ lang: 'en' });
      await get(gw, pageUrl(p));
      const callback = await gw.pay((await gw.attempts(p))[0]!.reference);
      assert.equal((await gw.callback(callback)).status, 200);
      const status = await finalStatus(p);
      assert.equal(status.state, 'SUCCESS');
      assert.match(String(status.returnUrl), /result=CAPTURED/);
      const result = await get(gw, pageUrl(p));
      assert.match(result.body, /Payment successful/);
      assert.equal(gw.bankCalls(REQUEST_PATH, (await gw.attempts(p))[0]!.reference), 1);
    });
  });

  describe(`hosted page in sandbox mode with KBank, payments of 30 minutes [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    before(async () => {
      gw = await startLiveGateway(dialect, { env: { GATEWAY_MODE: 'sandbox', TRANSACTION_TTL: '30m' } });
    });
    after(() => gw?.close());

    test("the bank's QR under the test banner; Cancel, and no Confirm", async () => {
      const p = await gw.start({ lang: 'en' });
      const page = await get(gw, pageUrl(p));
      assert.match(page.body, /TEST \(sandbox\)/);
      assert.match(page.body, /QR issued by KBank/);
      assert.match(page.body, /id="cancel"/);
      assert.doesNotMatch(page.body, /id="confirm"/);
    });

    test("a payment that outlives the bank's QR counts down to the QR's deadline", async () => {
      const p = await gw.start({ lang: 'en' });
      const page = await get(gw, pageUrl(p));
      const qr = (await gw.attempts(p))[0]!;
      assert.ok(qr.expiresAt! < (await gw.transaction(p)).expiresAt);
      assert.match(page.body, new RegExp(`data-remaining-ms="${qr.expiresAt! - gw.clock.now}"`));
      assert.ok(page.body.includes(`Expires at ${formatDeadline(qr.expiresAt!, 'en')}`));
    });
  });
}
