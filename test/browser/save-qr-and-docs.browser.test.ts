// In Chromium: "Save QR" downloads a PNG that decodes (jsQR) to the same payload as the QR drawn
// on the page (a screenshot of the SVG, decoded the same way); the sandbox page says it is a
// test; /docs renders the API reference from this origin only, with no CSP violation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeQrPng } from '../support/qr-decode.ts';
import {
  browserSkipReason,
  launchBrowser,
  startListeningGateway,
  startMerchantSite,
  type Browser,
  type ListeningGateway,
  type MerchantSite,
} from '../support/browser.ts';

const skip = browserSkipReason();

describe('Save QR and /docs in Chromium', { skip, timeout: 120_000 }, () => {
  let gw: ListeningGateway;
  let merchant: MerchantSite;
  let browser: Browser;
  let creds: { merchantid: string; password: string };

  before(async () => {
    merchant = await startMerchantSite();
    gw = await startListeningGateway();
    creds = await gw.gateway.services.manageMerchants.create({
      name: 'Siam Coffee Roasters',
      payoutCurrency: 'THB',
      payoutAccount: '4111111111119012',
    });
    await gw.gateway.services.directory.refresh();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await merchant?.close();
  });

  async function openPage(width: number, height: number) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    return { page, problems, requests };
  }

  test(
    'Save QR downloads a PNG of the same payload as the ' + 'page shows; sandbox banner, hint and dated deadline',
    async () => {
      const response = await fetch(`${gw.gateway.url}/transaction/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          merchantid: creds.merchantid,
          password: creds.password,
          payment_method: { type: 'THAI_DEBIT' },
          trackid: `save-${Date.now()}`,
          bill_currencycode: 'THB',
          bill_amount: '1000.00',
          bill_country: 'TH',
          bill_customerip: '203.0.113.7',
          bill_email: 'buyer@example.com',
          returnUrl: `${merchant.url}/return`,
          serverUrl: `${merchant.url}/notify`,
          payer_account_no: '1234569012',
          payer_account_name: 'Malee Srisuk',
          payer_bank_code: 'SCB',
          lang: 'en',
        }),
      });
      const { redirectUrl } = (await response.json()) as { redirectUrl: string };
      const { page, problems } = await openPage(360, 740);
      await page.goto(redirectUrl);
      assert.equal((await page.textContent('#test-banner'))?.trim(), 'TEST (sandbox) — no real money moves');
      assert.ok(await page.isVisible('#same-device'));
      assert.match(
        (await page.textContent('#deadline')) ?? '',
        /^Expires at \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} ICT$/,
      );

      const shown = decodeQrPng(await page.locator('#qr svg').screenshot());
      assert.ok(shown.text, 'the QR on the page decodes');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-qr')]);
      assert.equal(download.suggestedFilename(), 'thai-qr-payment.png');
      const saved = decodeQrPng(readFileSync((await download.path())!));
      assert.deepEqual([saved.width, saved.height], [640, 640]);
      assert.equal(saved.text, shown.text, 'the saved PNG holds the payload the page shows');
      assert.ok(page.url() === redirectUrl, 'the page stays open after saving');
      assert.deepEqual(problems, [], 'no CSP violations or script errors');
      await page.close();
    },
  );

  test('/docs renders every operation from local assets under its CSP', async () => {
    const { page, problems, requests } = await openPage(1280, 800);
    const answer = await page.goto(`${gw.gateway.url}/docs`);
    assert.match(answer?.headers()['content-security-policy'] ?? '', /script-src 'self'; style-src 'self'/);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    for (const path of [
      '/transaction/s2s',
      '/transaction/status',
      '/sandbox/transaction/complete',
      '/GatewayInstaPay/QueryPayoutBalance',
    ]) {
      assert.ok(
        paths.some((p) => p.replace(/\u200b/g, '').includes(path)),
        `${path} in ${paths.join(', ')}`,
      );
    }
    assert.ok(requests.length > 2);
    for (const url of requests)
      assert.ok(url.startsWith(gw.gateway.url) || url.startsWith('data:'), `only this origin: ${url}`);
    assert.deepEqual(problems, [], 'no CSP violations or script errors');
    await page.close();
  });

  test("/docs' Try it out starts from the operation's real request example, not one made from the schema", async () => {
    const { page, problems } = await openPage(1280, 800);
    await page.goto(`${gw.gateway.url}/docs`);
    const operation = page.locator('#operations-Payments-initiatePayment');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    const body = JSON.parse(await operation.locator('textarea.body-param__text').inputValue()) as Record<
      string,
      unknown
    >;
    assert.equal(body.bill_amount, '1000.00');
    assert.equal(body.trackid, 'order-1001');
    assert.doesNotMatch(JSON.stringify(body), /additionalProp|"string"/);
    assert.deepEqual(problems, [], 'no CSP violations or script errors');
    await page.close();
  });
});
