// The live hosted page in a real browser (Debian's Chromium), with the KBank connector on
// kbank-sim (docs/connectors/kbank.md "What the customer sees"): on a phone the page shows the
// bank's QR and who issued it, Cancel and no Confirm, fits 360 px, and has no CSP violation;
// when the customer pays in a banking app, KBank's callback reaches the gateway and the page's
// status poll takes the customer back to the merchant with CAPTURED (the workers `serve` runs:
// the reconciler makes the inquiry a callback asks for, the delivery worker notifies the shop). The screenshot goes to
// docs/images/ with UPDATE_SCREENSHOTS=1. SQLite only: both stores are covered by
// test/http/hosted-page/live-page.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../src/dev/kbank-sim/server.ts';
import {
  initiateOn,
  addShop,
  browserSkipReason,
  launchBrowser,
  screenshotsDir,
  startListeningGateway,
  startMerchantSite,
  type Browser,
  type ListeningGateway,
  type MerchantSite,
} from '../support/browser.ts';
import { kbankEnvFor } from '../support/connector-harnesses.ts';
import { workersFor } from '../../src/workers.ts';

const IMAGES = screenshotsDir();
const MOBILE = { width: 360, height: 740 };
const CALLBACK_TOKEN = 'browser-live-callback-token-0123456789';

const skip = browserSkipReason();

describe('live hosted page with KBank in Chromium', { skip, timeout: 120_000 }, () => {
  let sim: KbankSim;
  let gw: ListeningGateway;
  let merchant: MerchantSite;
  let browser: Browser;
  let creds: { merchantid: string; password: string };

  before(async () => {
    merchant = await startMerchantSite();
    sim = await startKbankSim({ now: Date.now() });
    gw = await startListeningGateway(
      {
        GATEWAY_MODE: 'live',
        // Live mode hands out https URLs only; the browser opens the same path on the listening address.
        PUBLIC_BASE_URL: 'https://pay.example',
        ...kbankEnvFor(sim, CALLBACK_TOKEN),
        TRANSACTION_TTL: '10m',
        // The merchant's notification endpoint is on 127.0.0.1 in this test.
        OUTBOUND_ALLOW_HTTP: 'true',
        OUTBOUND_ALLOWLIST: '127.0.0.1',
      },
      { workers: [...workersFor({ deliveryWorker: true })] },
    );
    // KBank calls the gateway's callback route when the customer pays.
    sim.setCallbackUrl(sim.credentials.merchantId, `${gw.gateway.url}/processor/kbank/notify/${CALLBACK_TOKEN}`);
    creds = await addShop(gw);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await sim?.close();
    await merchant?.close();
  });

  test("phone, English: the bank's QR, its issuer, Cancel and no Confirm; paying takes the customer back", async () => {
    const trackid = `live-${Math.random().toString(36).slice(2, 10)}`;
    const tx = await initiateOn(gw, creds, {
      trackid,
      returnUrl: `${merchant.url}/return?order=187`,
      serverUrl: `${merchant.url}/notify`,
      lang: 'en',
    });

    const page = await browser.context.newPage();
    await page.setViewportSize(MOBILE);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const redirect = new URL(tx.redirectUrl!);
    await page.goto(`${gw.gateway.url}${redirect.pathname}${redirect.search}`);
    assert.equal(await page.locator('#qr svg[role="img"]').count(), 1);
    assert.match((await page.textContent('#issuer')) ?? '', /QR issued by KBank\. Any Thai banking app can pay it\./);
    assert.equal(await page.locator('#cancel').count(), 1);
    assert.equal(await page.locator('#confirm').count(), 0);
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'fits 360 px');
    await page.screenshot({ path: new URL('hosted-page-live-en-mobile.png', IMAGES).pathname, fullPage: true });

    // The customer pays in a banking app: KBank calls back, the gateway asks KBank, the poll sees SUCCESS.
    const [qr] = sim.state().records.filter((q) => q.status === 'REQUESTED');
    assert.ok(qr, 'the bank holds one open QR');
    const paid = sim.pay(qr.partnerTxnUid);
    assert.ok(paid.ok);
    await page.waitForURL(`${merchant.url}/return?**`, { timeout: 20_000 });
    const landing = new URL(page.url());
    assert.equal(landing.searchParams.get('result'), 'CAPTURED');
    assert.equal(landing.searchParams.get('transactionid'), tx.transactionid);
    assert.equal(landing.searchParams.get('order'), '187');
    assert.deepEqual(problems, [], 'no CSP violations or script errors');
    await page.close();
  });
});
