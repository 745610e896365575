// The hosted page in a real browser (Debian's Chromium): a real redirectUrl from a listening
// gateway, at phone and desktop sizes, in both languages; confirm and cancel land on the
// merchant's return URL with the result; polling brings the customer back when the payment
// ends elsewhere. Screenshots are taken every run; with UPDATE_SCREENSHOTS=1 they replace
// the ones in docs/images/ (for the docs, and for a human to look at).
// SQLite only: the store behaviour is covered on both stores by the HTTP tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
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

const IMAGES = screenshotsDir();
const MOBILE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

const skip = browserSkipReason();

describe('hosted page in Chromium', { skip, timeout: 120_000 }, () => {
  let gw: ListeningGateway;
  let merchant: MerchantSite;
  let browser: Browser;
  let creds: { merchantid: string; password: string };

  before(async () => {
    merchant = await startMerchantSite();
    gw = await startListeningGateway();
    creds = await addShop(gw);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await merchant?.close();
  });

  async function initiate(
    overrides: Record<string, unknown>,
  ): Promise<{ redirectUrl: string; transactionid: string; trackid: string }> {
    const body = {
      trackid: `web-${Math.random().toString(36).slice(2, 10)}`,
      returnUrl: `${merchant.url}/return?order=187`,
      serverUrl: `${merchant.url}/notify`,
      ...overrides,
    };
    const json = await initiateOn(gw, creds, body);
    assert.ok(
      json.redirectUrl!.startsWith(`${gw.gateway.url}/transaction/Redirect?ID=`),
      'the redirectUrl points at the listening server',
    );
    return { redirectUrl: json.redirectUrl!, transactionid: json.transactionid!, trackid: body.trackid };
  }

  /** Opens a page that fails the test on any CSP violation or script error. */
  async function openPage(size: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.context.newPage();
    await page.setViewportSize(size);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems };
  }

  function assertReturned(
    landing: URL | undefined,
    expected: { result: string; responsecode: string; trackid: string; transactionid: string },
  ): void {
    assert.ok(landing, 'the customer reached the merchant');
    assert.equal(landing.pathname, '/return');
    assert.equal(landing.searchParams.get('order'), '187', "the merchant's own query is kept");
    assert.equal(landing.searchParams.get('result'), expected.result);
    assert.equal(landing.searchParams.get('responsecode'), expected.responsecode);
    assert.equal(landing.searchParams.get('trackid'), expected.trackid);
    assert.equal(landing.searchParams.get('transactionid'), expected.transactionid);
    assert.ok((landing.searchParams.get('responsedescription') ?? '').length > 0);
  }

  test('phone, English: shows amount, QR and details; confirm lands on the merchant with CAPTURED', async () => {
    const tx = await initiate({ lang: 'en' });
    const { page, problems } = await openPage(MOBILE);
    await page.goto(tx.redirectUrl);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal((await page.textContent('#amount'))?.trim(), '฿1,000.00');
    assert.equal(await page.locator('#qr svg[role="img"]').count(), 1);
    const qrBox = await page.locator('#qr svg').boundingBox();
    assert.ok(
      qrBox && qrBox.width >= 200 && qrBox.x >= 0 && qrBox.x + qrBox.width <= MOBILE.width,
      `QR fits the phone screen: ${JSON.stringify(qrBox)}`,
    );
    const body = await page.textContent('body');
    assert.match(body ?? '', /•••• 9012/);
    assert.match(body ?? '', /Siam Commercial Bank/);
    assert.match(body ?? '', new RegExp(tx.trackid));
    assert.doesNotMatch(body ?? '', /Malee|buyer@example\.com|1234569012/, 'no PII beyond the masked account');
    assert.match((await page.textContent('#countdown')) ?? '', /^1[45]:\d\d$/);
    const noHorizontalScroll = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
    assert.ok(noHorizontalScroll, 'usable at 360 px: nothing wider than the screen');
    await page.screenshot({ path: new URL('hosted-page-en-mobile.png', IMAGES).pathname, fullPage: true });

    // Keyboard only: Tab reaches the confirm button, Enter submits it.
    await page.focus('#confirm');
    await Promise.all([page.waitForURL(`${merchant.url}/return?**`), page.keyboard.press('Enter')]);
    assertReturned(new URL(page.url()), {
      result: 'CAPTURED',
      responsecode: '0',
      trackid: tx.trackid,
      transactionid: tx.transactionid,
    });
    assert.deepEqual(problems, [], 'no CSP violations or script errors');
    await page.close();
  });

  test('phone, Thai: switching language on the page; cancel lands on the merchant with Not Successful', async () => {
    const tx = await initiate({ lang: 'en', bill_amount: '12500.50' });
    const { page, problems } = await openPage(MOBILE);
    await page.goto(tx.redirectUrl);
    await Promise.all([page.waitForURL(/lang=th/), page.click('nav.lang a')]);
    assert.equal(await page.getAttribute('html', 'lang'), 'th');
    assert.equal((await page.textContent('#amount'))?.trim(), '฿12,500.50');
    assert.match((await page.textContent('body')) ?? '', /ธนาคารไทยพาณิชย์/);
    assert.equal((await page.textContent('#cancel'))?.trim(), 'ยกเลิกการชำระเงิน');
    await page.screenshot({ path: new URL('hosted-page-th-mobile.png', IMAGES).pathname, fullPage: true });

    await Promise.all([page.waitForURL(`${merchant.url}/return?**`), page.click('#cancel')]);
    assertReturned(new URL(page.url()), {
      result: 'Not Successful',
      responsecode: '6',
      trackid: tx.trackid,
      transactionid: tx.transactionid,
    });
    assert.match(new URL(page.url()).searchParams.get('responsedescription') ?? '', /cancelled/);
    assert.deepEqual(problems, []);

    // Coming back to the page afterwards shows the result, with the way back to the merchant.
    await page.goto(`${tx.redirectUrl}&lang=th`);
    assert.match((await page.textContent('h1')) ?? '', /ไม่สำเร็จ/);
    await page.screenshot({ path: new URL('hosted-page-result-th-mobile.png', IMAGES).pathname, fullPage: true });
    await page.close();
  });

  test('desktop: two-column layout; confirm above the sandbox limit lands with Not Successful (DECLINED)', async () => {
    const tx = await initiate({ lang: 'en', bill_amount: '15000' });
    const { page, problems } = await openPage(DESKTOP);
    await page.goto(tx.redirectUrl);
    assert.equal((await page.textContent('#amount'))?.trim(), '฿15,000.00');
    const qr = await page.locator('#qr svg').boundingBox();
    const details = await page.locator('.details').boundingBox();
    assert.ok(qr && details && details.x > qr.x + qr.width, 'details sit beside the QR on a wide screen');
    await page.screenshot({ path: new URL('hosted-page-desktop.png', IMAGES).pathname, fullPage: true });

    await Promise.all([page.waitForURL(`${merchant.url}/return?**`), page.click('#confirm')]);
    assertReturned(new URL(page.url()), {
      result: 'Not Successful',
      responsecode: '6',
      trackid: tx.trackid,
      transactionid: tx.transactionid,
    });
    assert.match(new URL(page.url()).searchParams.get('responsedescription') ?? '', /declined/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('polling: a payment finished elsewhere takes the open page back to the merchant', async () => {
    const tx = await initiate({ lang: 'en' });
    const { page, problems } = await openPage(MOBILE);
    await page.goto(tx.redirectUrl);
    await gw.gateway.services.complete.execute(tx.transactionid, 'sandbox');
    await page.waitForURL(`${merchant.url}/return?**`, { timeout: 20_000 });
    assertReturned(new URL(page.url()), {
      result: 'CAPTURED',
      responsecode: '0',
      trackid: tx.trackid,
      transactionid: tx.transactionid,
    });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
