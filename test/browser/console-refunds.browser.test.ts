// Refunds and failing notifications in the console on a phone (360 × 740, Debian's Chromium): an
// operator refunds a whole payment through the confirmation step, sees it marked Refunded in the
// header, the list and the timeline, and opens the notifications page on what needs attention —
// the payment's notification failing and retrying. Every page is checked for CSP violations. With
// UPDATE_SCREENSHOTS=1 the screenshots replace those in docs/images/ (docs/console.md).
// SQLite only: the store behaviour is covered on both stores by the HTTP tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { deliveryWorker } from '../../src/delivery/delivery-worker.ts';
import {
  addConsoleCast,
  initiateOn,
  browserSkipReason,
  launchBrowser,
  screenshotsDir,
  startFailingEndpoint,
  startListeningGateway,
  type Browser,
  type FailingEndpoint,
  type ListeningGateway,
} from '../support/browser.ts';

const IMAGES = screenshotsDir();
const MOBILE = { width: 360, height: 740 };
const OPERATOR_PASSWORD = 'operator password 1';

const skip = browserSkipReason();

async function until(check: () => Promise<boolean>, what: string, withinMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('console refunds and notifications at 360 px in Chromium', { skip, timeout: 120_000 }, () => {
  let gw: ListeningGateway;
  let receiver: FailingEndpoint;
  let receiverUrl: string;
  let browser: Browser;
  let shop: { merchantid: string; password: string };
  const problems: string[] = [];

  before(async () => {
    // The shop's endpoint is down: every notification fails.
    receiver = await startFailingEndpoint(503, 'maintenance');
    receiverUrl = receiver.url;
    // Three quick attempts, then the next one an hour later: failing, and still retrying.
    gw = await startListeningGateway(
      { RETRY_LADDER: '0,0,0,1h', DELIVERY_POLL_INTERVAL: '100ms' },
      { workers: [deliveryWorker] },
    );
    const { services } = gw.gateway;
    shop = (await addConsoleCast(gw, 'siam-coffee', OPERATOR_PASSWORD)).shop;
    await services.directory.refresh();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  async function paid(trackid: string, amount: string): Promise<string> {
    const json = await initiateOn(gw, shop, {
      trackid,
      bill_amount: amount,
      bill_email: 'malee@example.com',
      returnUrl: `${receiverUrl}/return`,
      serverUrl: `${receiverUrl}/notify`,
      productdesc: 'Order · coffee beans',
    });
    await gw.gateway.services.complete.execute(json.transactionid!, 'sandbox', { override: 'success' });
    return json.transactionid!;
  }

  async function openPage(): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(MOBILE);
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  }

  test('a whole refund through its confirmation; Refunded beside Success; notifications open on failing', async () => {
    const { services } = gw.gateway;
    // Another payment keeps the shop's balance above the refund (the fee is not returned).
    await paid('order-300', '500.00');
    const transactionid = await paid('order-301', '450.00');
    await until(async () => {
      const e = await services.store.outbox.findByTransaction(transactionid);
      return e?.status === 'pending' && e.attempts === 3;
    }, 'three failed attempts, the next one an hour away');

    const page = await openPage();
    await page.goto(`${gw.gateway.url}/console/login?lang=en`);
    await page.check('input[name=role][value=operator]');
    await page.fill('#username', 'somchai');
    await page.fill('#password', OPERATOR_PASSWORD);
    await Promise.all([page.waitForURL(/\/console\/payments/), page.click('button[type=submit]:has-text("Log in")')]);

    await page.goto(`${gw.gateway.url}/console/payments/${transactionid}`);
    await page.fill('#refund_reason', 'Order cancelled by the customer');
    await Promise.all([page.waitForURL(/\/refund$/), page.click('#refunds button:has-text("Refund")')]);
    const confirm = await page.locator('#confirm-refund').innerText();
    assert.match(confirm, /Amount to refund\s+฿450\.00/);
    assert.match(confirm, /Still refundable after it\s+฿0\.00/);
    assert.equal((await services.refunds.ofTransaction(transactionid)).length, 0, 'nothing refunded before confirming');
    await page.screenshot({ path: new URL('console-refund-confirm-mobile.png', IMAGES).pathname, fullPage: true });

    await Promise.all([page.waitForURL(/done=refunded&refund=rfd_/), page.click('#confirm-refund button')]);
    assert.match(await page.innerText('h1'), /order-301\s+Success\s+Refunded/);
    const timeline = page.locator('section:has(h2:has-text("Timeline")) tbody tr');
    assert.match(await timeline.last().innerText(), /Refund rfd_[\w-]+ · ฿450\.00 · Order cancelled by the customer/);
    assert.match(await page.locator('#notification').innerText(), /Attempts\s+3/);
    assert.match(await page.innerText('main'), /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\+7/);
    await page.screenshot({ path: new URL('console-payment-refunded-mobile.png', IMAGES).pathname, fullPage: true });

    await page.goto(`${gw.gateway.url}/console/payments?q=order-301`);
    assert.match(await page.locator('main table tbody').innerText(), /Success\s+Refunded/);

    await page.goto(`${gw.gateway.url}/console/deliveries`);
    assert.equal(
      await page.getAttribute('nav.tabs a[aria-current="page"]', 'href'),
      '/console/deliveries?status=attention',
    );
    const listed = await page.locator('main table tbody').innerText();
    assert.ok(listed.includes(transactionid), 'the failing, retrying notification is on the first tab');
    await page.screenshot({
      path: new URL('console-deliveries-attention-mobile.png', IMAGES).pathname,
      fullPage: true,
    });
    await page.close();
    assert.deepEqual(problems, [], 'no console errors (CSP violations included)');
  });
});
