// The web console in a real browser (Debian's Chromium): an operator logs in, finds a payment,
// sees its failed notification, resends it and watches the new attempt arrive; creates a
// merchant; exports a CSV; resolves a needs-attention item on a phone. A merchant logs in, sees
// its own payment and gets the 404 page for another merchant's payment opened by URL. Every page
// is checked for CSP violations. With UPDATE_SCREENSHOTS=1 the screenshots replace those in
// docs/images/.
// SQLite only: the store behaviour is covered on both stores by the HTTP tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { deliveryWorker } from '../../src/delivery/delivery-worker.ts';
import {
  addConsoleCast,
  initiateOn,
  browserSkipReason,
  launchBrowser,
  screenshotsDir,
  startListeningGateway,
  type Browser,
  type ListeningGateway,
} from '../support/browser.ts';
import { insertAttempt } from '../support/processor-rows.ts';

const IMAGES = screenshotsDir();
const MOBILE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 860 };
const OPERATOR_PASSWORD = 'operator password 1';

const skip = browserSkipReason();

/** The merchant's notification endpoint: answers 500 until told to accept, then 200. */
type Receiver = { url: string; accept: boolean; received: number; close(): Promise<void> };
async function startReceiver(): Promise<Receiver> {
  const state = { accept: false, received: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      res.writeHead(state.accept ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(state.accept ? 'OK' : 'database is down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get accept() {
      return state.accept;
    },
    set accept(value: boolean) {
      state.accept = value;
    },
    get received() {
      return state.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(check: () => Promise<boolean>, what: string, withinMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('web console in Chromium', { skip, timeout: 180_000 }, () => {
  let gw: ListeningGateway;
  let receiver: Receiver;
  let browser: Browser;
  let shop: { merchantid: string; password: string };
  let other: { merchantid: string; password: string };
  let shopConsolePassword: string;
  const problems: string[] = [];
  /** Set while the test opens pages that answer 404 on purpose (Chromium logs those as errors). */
  let expecting404 = false;

  before(async () => {
    receiver = await startReceiver();
    gw = await startListeningGateway(
      { RETRY_LADDER: '0', DELIVERY_POLL_INTERVAL: '100ms' },
      { workers: [deliveryWorker] },
    );
    const { services } = gw.gateway;
    const { shop: created, consoleServices: c } = await addConsoleCast(gw, 'siam-coffee', OPERATOR_PASSWORD);
    shop = created;
    other = await services.manageMerchants.create({
      id: 'other-shop',
      name: 'Other Shop',
      payoutCurrency: 'THB',
      payoutAccount: '4111111111110000',
    });
    shopConsolePassword = (await c.accounts.issueMerchantPassword('siam-coffee')).password;
    await services.directory.refresh();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  async function initiate(
    creds: { merchantid: string; password: string },
    trackid: string,
    amount: string,
  ): Promise<string> {
    const json = await initiateOn(gw, creds, {
      trackid,
      bill_amount: amount,
      bill_email: 'malee@example.com',
      returnUrl: `${receiver.url}/return`,
      serverUrl: `${receiver.url}/notify`,
    });
    return json.transactionid!;
  }

  async function openPage(size: { width: number; height: number }): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(size);
    page.on('console', (m) => {
      if (m.type() === 'error' && !(expecting404 && m.text().includes('status of 404'))) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  }

  async function logIn(page: Page, role: 'operator' | 'merchant', username: string, password: string): Promise<void> {
    await page.goto(`${gw.gateway.url}/console/login?lang=en`);
    await page.check(`input[name=role][value=${role}]`);
    await page.fill('#username', username);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/console\/payments/), page.click('button[type=submit]:has-text("Log in")')]);
  }

  test('operator: log in, find a payment, resend its failed notification and see the new attempt', async () => {
    const { services } = gw.gateway;
    const transactionid = await initiate(shop, 'order-187', '1000.00');
    await initiate(shop, 'order-188', '250.00');
    await services.complete.execute(transactionid, 'sandbox', { override: 'success' });
    const outbox = services.store.outbox;
    await until(
      async () => (await outbox.findByTransaction(transactionid))?.status === 'failed',
      'the first delivery fails (HTTP 500)',
    );

    const page = await openPage(MOBILE);
    await page.goto(`${gw.gateway.url}/console/login?lang=th`);
    assert.equal(await page.getAttribute('html', 'lang'), 'th');
    await page.screenshot({ path: new URL('console-login-th-mobile.png', IMAGES).pathname, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await logIn(page, 'operator', 'somchai', OPERATOR_PASSWORD);
    const cookies = await browser.context.cookies();
    const session = cookies.find((c) => c.name === 'gw_console');
    assert.ok(session?.httpOnly && session.sameSite === 'Strict', 'HttpOnly, SameSite=Strict session cookie');

    await page.fill('#q', 'order-187');
    await Promise.all([page.waitForURL(/q=order-187/), page.click('form[role=search] button[type=submit]')]);
    const rows = page.locator('main table tbody tr');
    assert.equal(await rows.count(), 1);
    await page.screenshot({ path: new URL('console-payments-desktop.png', IMAGES).pathname, fullPage: true });
    await Promise.all([
      page.waitForURL(new RegExp(`/console/payments/${transactionid}$`)),
      page.click(`a[href$="/console/payments/${transactionid}"] >> nth=0`),
    ]);
    const attemptRows = page.locator('#notification table tbody tr');
    assert.equal(await attemptRows.count(), 1);
    assert.match(await attemptRows.first().innerText(), /HTTP 500/);
    assert.match(await page.locator('#notification').innerText(), /failed/);
    assert.match(await page.innerText('main'), /•••• 9012/);

    receiver.accept = true;
    await Promise.all([page.waitForURL(/done=resent&series=2/), page.click('#notification button[type=submit]')]);
    assert.match(await page.innerText('main'), /Notification queued again \(series 2\)/);
    await until(async () => {
      await page.reload();
      return (await attemptRows.count()) === 2;
    }, 'the new attempt shows on the page');
    assert.match(await attemptRows.nth(1).innerText(), /HTTP 200/);
    assert.match(await page.locator('#notification').innerText(), /delivered/);

    // A partial refund from the same page: the refund and its notification appear.
    await page.fill('#refund_amount', '100.00');
    await page.fill('#refund_reason', 'one bag arrived damaged');
    await Promise.all([page.waitForURL(/\/refund$/), page.click('#refunds button:has-text("Refund")')]);
    assert.match(await page.locator('#confirm-refund').innerText(), /฿100\.00/, 'the amount, to confirm');
    await Promise.all([page.waitForURL(/done=refunded&refund=rfd_/), page.click('#confirm-refund button')]);
    const refundsText = await page.locator('#refunds').innerText();
    assert.match(refundsText, /rfd_/);
    assert.match(refundsText, /one bag arrived damaged/);
    assert.match(refundsText, /฿900\.00/, 'still refundable');
    await page.screenshot({ path: new URL('console-payment-detail-desktop.png', IMAGES).pathname, fullPage: true });

    await page.goto(`${gw.gateway.url}/console/deliveries?status=all`);
    assert.match(await page.innerText('main'), new RegExp(transactionid));
    await page.screenshot({ path: new URL('console-deliveries-desktop.png', IMAGES).pathname, fullPage: true });
    await page.close();
  });

  test('operator: create a merchant (secrets shown once) and export a CSV of a ledger', async () => {
    const page = await openPage(DESKTOP);
    await page.goto(`${gw.gateway.url}/console/merchants`);
    await page.fill('#name', 'Chiang Mai Crafts');
    await page.fill('#payout_account', '123456789012');
    await page.fill('#id', 'cm-crafts');
    await Promise.all([page.waitForURL(/\/console\/merchants$/), page.click('button:has-text("Create merchant")')]);
    assert.match(await page.innerText('h1'), /Merchant created/);
    const secrets = await page.locator('.secret').allInnerTexts();
    assert.equal(secrets.length, 3);
    assert.equal(secrets[0], 'cm-crafts');
    assert.match(secrets[1]!, /^pw_/);
    assert.match(secrets[2]!, /^whsec_/);
    await page.screenshot({ path: new URL('console-merchant-created-desktop.png', IMAGES).pathname, fullPage: true });
    await page.goto(`${gw.gateway.url}/console/merchants`);
    const listText = await page.innerText('main');
    assert.ok(
      listText.includes('cm-crafts') && !listText.includes(secrets[1]!) && !listText.includes(secrets[2]!),
      'listed, secrets not shown again',
    );

    await page.goto(`${gw.gateway.url}/console/balances?merchant=siam-coffee`);
    await page.screenshot({ path: new URL('console-balances-desktop.png', IMAGES).pathname, fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("Export CSV")')]);
    const csv = readFileSync(await download.path(), 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'account_seq,created_at,entry_id,kind,transactionid,reason,currency,amount,balance_after,refundid,refund_reason',
    );
    // 1,000.00 THB less the 1.75 % fee, then the 100.00 refund.
    assert.match(lines[1]!, /,payment,[0-9a-f-]{36},payment order-187,THB,982\.5000,982\.5000,,$/);
    const transactionOf187 = lines[1]!.split(',')[4];
    const [, refundId] = /,refund (rfd_[\w-]+) of payment order-187,/.exec(lines[2]!) ?? [];
    assert.ok(
      lines[2]!.endsWith(
        `,refund,${transactionOf187},refund ${refundId} of payment order-187,THB,-100.0000,882.5000,` +
          `${refundId},one bag arrived damaged`,
      ),
      lines[2],
    );
    await page.close();
  });

  test('operator: Needs attention at 360 px, resolved with a note; the payment shows its processor side', async () => {
    const { services } = gw.gateway;
    const transactionid = await initiate(shop, 'order-190', '500.00');
    const now = Date.now();
    await insertAttempt(services.store, transactionid, {
      reference: 'KBQR00000000190',
      state: 'paid',
      accountName: 'Siam Coffee Roasters',
      processorTxnNo: 'KB-2026-0190',
      paidAmountMinor: 5_000_000n,
      paidAt: now,
      checks: 1,
    });
    await services.store.attention.raise({
      id: 'att_browser190',
      transactionId: transactionid,
      kind: 'paid_after_final',
      detail: 'Paid at the processor (KBQR00000000190, KB-2026-0190) after the payment ended EXPIRED.',
      amountMinor: 5_000_000n,
      reference: 'KBQR00000000190',
      createdAt: now,
      resolvedAt: null,
      resolvedBy: null,
      resolution: null,
    });
    await services.openAttention.refresh();

    const page = await openPage(MOBILE);
    await page.goto(`${gw.gateway.url}/console/payments/${transactionid}?lang=en`);
    assert.match(await page.locator('#processor').innerText(), /KB-2026-0190/);
    assert.match(await page.locator('#attention').innerText(), /paid after the payment ended/);
    await page.screenshot({ path: new URL('console-payment-processor-mobile.png', IMAGES).pathname, fullPage: true });
    await page.click('header a[href$="/console/attention"]');
    await page.waitForURL(/\/console\/attention$/);
    assert.match(await page.innerText('h1'), /Needs attention/);
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(width <= MOBILE.width, `no sideways scrolling of the page at 360 px (scrollWidth ${width})`);
    await page.screenshot({ path: new URL('console-attention-mobile.png', IMAGES).pathname, fullPage: true });
    await page.fill('#note-att_browser190', 'Transferred 500.00 back to the payer');
    await Promise.all([
      page.waitForURL(/done=resolved&item=att_browser190/),
      page.click('#att_browser190 button[type=submit]'),
    ]);
    assert.match(await page.innerText('main'), /Marked att_browser190 resolved/);
    assert.match(await page.innerText('main'), /Transferred 500\.00 back to the payer/);
    assert.equal((await services.store.attention.find('att_browser190'))?.resolvedBy, 'operator:somchai');
    await page.close();
  });

  test("merchant: sees its own payment; another merchant's payment by URL is the 404 page", async () => {
    const foreign = await initiate(other, 'other-1', '500.00');
    const page = await openPage(MOBILE);
    // Log the operator out first (the browser profile is shared).
    await page.goto(`${gw.gateway.url}/console/payments`);
    await Promise.all([page.waitForURL(/loggedout=1/), page.click('header button[type=submit]')]);
    await logIn(page, 'merchant', 'siam-coffee', shopConsolePassword);
    assert.match(await page.innerText('main'), /order-187/);
    assert.doesNotMatch(await page.innerText('main'), /other-1/);
    await page.screenshot({ path: new URL('console-payments-merchant-mobile.png', IMAGES).pathname, fullPage: true });
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(width <= MOBILE.width, `no sideways scrolling of the page at 360 px (scrollWidth ${width})`);

    expecting404 = true;
    const response = await page.goto(`${gw.gateway.url}/console/payments/${foreign}`);
    assert.equal(response?.status(), 404);
    const unknown = await page.goto(`${gw.gateway.url}/console/payments/01900000-0000-7000-8000-000000000000`);
    assert.equal(unknown?.status(), 404);
    assert.doesNotMatch(await page.content(), new RegExp(foreign));
    assert.equal(
      (await page.goto(`${gw.gateway.url}/console/merchants`))?.status(),
      404,
      'operator pages are not there for merchants',
    );
    expecting404 = false;
    await page.close();
  });

  test('no page broke its CSP or threw', () => {
    assert.deepEqual(problems, []);
  });
});
