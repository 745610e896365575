// Every console page on a 360 × 740 phone, as an operator and as a merchant, in Debian's
// Chromium: nothing is wider than the screen (no sideways scrolling of the page, and no element
// outside it — a table scrolling inside its own box hides its right-hand columns just the same),
// the key fields of each list come first in their card, and ledger account names wrap at their
// segments. Each page is photographed (console-<page>-phone.png; docs/images/ with
// UPDATE_SCREENSHOTS=1). SQLite only: the layout does not depend on the store.
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
import { insertAttempt } from '../support/processor-rows.ts';

const IMAGES = screenshotsDir();
const PHONE = { width: 360, height: 740 };
const OPERATOR_PASSWORD = 'operator password 1';

const skip = browserSkipReason();

// The project compiles without the DOM library: what runs in the page is passed as source text.

/** Elements of the page that reach outside the screen, as `tag.class text` (visible ones only). */
const OUTSIDE = `(() => {
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (box.left < -0.5 || box.right > window.innerWidth + 0.5)
      found.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + (el.textContent || '').trim().slice(0, 40));
  }
  return found;
})()`;

/** The page fits a 360 px screen, and the screenshot for the docs. */
async function checkPage(page: Page, name: string): Promise<void> {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as number[];
  assert.ok(scrollWidth! <= innerWidth!, `${name}: no sideways scrolling (scrollWidth ${scrollWidth} > ${innerWidth})`);
  const out = (await page.evaluate(OUTSIDE)) as string[];
  assert.deepEqual(out.slice(0, 5), [], `${name}: ${out.length} elements reach outside the 360 px screen`);
  await page.screenshot({ path: new URL(`console-${name}-phone.png`, IMAGES).pathname, fullPage: true });
}

/** Ledger account names wrap after a `:` or `-` of the name, on 3 lines at most: not a letter or two a line. */
async function accountNamesWrapAtSegments(page: Page, atLeast: number): Promise<void> {
  const names = (await page.evaluate(ACCOUNT_WRAPS)) as { text: string; lines: number; before: string[] }[];
  assert.ok(names.length >= atLeast, `${names.length} account names shown`);
  for (const name of names) {
    assert.ok(name.lines >= 1 && name.lines <= 3, `${name.text} on ${name.lines} lines`);
    for (const c of name.before) assert.match(c, /[:-]/, `${name.text} wraps after "${c}", not at a segment`);
  }
}

/** The element holding `text` is fully within the screen's width. */
async function onScreen(page: Page, selector: string, text: RegExp | string, what: string): Promise<void> {
  const box = await page.locator(selector, { hasText: text }).first().boundingBox();
  assert.ok(box, `${what}: shown`);
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${what}: within the screen (${box.x}, ${box.width})`);
}

/** The text of the cell shown at the top of the first card (row) of the page's first table. */
const FIRST_CARD_TOP = `(() => {
  const cells = [...document.querySelectorAll('main table tbody tr:first-child td')]
    .filter((c) => c.getBoundingClientRect().height > 0)
    .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
  return cells.length > 0 ? cells[0].innerText : '';
})()`;

/** Where each ledger account name in a table wraps: its number of lines and the character before each break. */
const ACCOUNT_WRAPS = `[...document.querySelectorAll('main td.mono, main td.mono a')]
  .filter((el) => /^[a-z_]+:[A-Za-z0-9_-]+:[A-Z]{3}$/.test(el.textContent.trim()))
  .map((el) => {
  const range = document.createRange();
  let top = -1, lines = 0;
  const before = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let last = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const content = node.textContent;
    for (let i = 0; i < content.length; i++) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const at = range.getBoundingClientRect().top;
      if (at > top + 2) {
        if (lines > 0) before.push(last);
        lines++;
        top = at;
      }
      last = content[i];
    }
  }
  return { text: el.textContent, lines, before };
})`;

describe('web console on a 360 px phone', { skip, timeout: 240_000 }, () => {
  let gw: ListeningGateway;
  let receiver: FailingEndpoint;
  let receiverUrl: string;
  let browser: Browser;
  let shop: { merchantid: string; password: string };
  let shopConsolePassword: string;
  let paid: string;
  let live: string;
  const problems: string[] = [];

  before(async () => {
    // The merchant's endpoint is down: notifications fail and retry.
    receiver = await startFailingEndpoint(500, 'database is down');
    receiverUrl = receiver.url;
    gw = await startListeningGateway(
      { RETRY_LADDER: '0,1h', DELIVERY_POLL_INTERVAL: '100ms' },
      { workers: [deliveryWorker] },
    );
    const { services } = gw.gateway;
    const { shop: created, consoleServices: c } = await addConsoleCast(
      gw,
      'siam-coffee-roasters-chiang-mai',
      OPERATOR_PASSWORD,
    );
    shop = created;
    shopConsolePassword = (await c.accounts.issueMerchantPassword(shop.merchantid)).password;
    await services.directory.refresh();

    paid = await initiate('order-2026-000187', '1250000.00');
    await initiate('order-2026-000188', '250.00');
    live = await initiate('order-2026-000190', '500.00');
    await services.complete.execute(paid, 'sandbox', { override: 'success' });
    await services.refund.execute(shop.merchantid, {
      transactionId: paid,
      currency: 'THB',
      amountMinor: 1_000_000n,
      reference: 'rr-187-1',
      reason: 'one bag arrived damaged',
      idempotencyKey: 'phone-refund-1',
    });
    const outbox = services.store.outbox;
    await until(async () => ((await outbox.findByTransaction(paid))?.attempts ?? 0) >= 1, 'a failed delivery');
    await addProcessorSide(live);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > 15_000) throw new Error(`${what}: not within 15 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function initiate(trackid: string, amount: string): Promise<string> {
    const started = await initiateOn(gw, shop, {
      trackid,
      bill_amount: amount,
      bill_email: 'malee.srisuk@example.com',
      returnUrl: `${receiverUrl}/return`,
      serverUrl: `${receiverUrl}/notify`,
    });
    return started.transactionid!;
  }

  /** A live payment's attempt at the processor and its needs-attention item (operators see both). */
  async function addProcessorSide(transactionid: string): Promise<void> {
    const { services } = gw.gateway;
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
    for (const [id, resolved] of [
      ['att_phone190', false],
      ['att_phone191', true],
    ] as const) {
      await services.store.attention.raise({
        id,
        transactionId: transactionid,
        kind: resolved ? 'amount_mismatch' : 'paid_after_final',
        detail: 'Paid at the processor (KBQR00000000190, KB-2026-0190) after the payment ended EXPIRED.',
        amountMinor: 5_000_000n,
        reference: 'KBQR00000000190',
        createdAt: now,
        resolvedAt: null,
        resolvedBy: null,
        resolution: null,
      });
      if (resolved)
        await services.store.attention.resolve(id, 'operator:somchai', 'Transferred 500.00 back, KBank ref 123', now);
    }
    await services.openAttention.refresh();
  }

  async function phonePage(): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    page.setDefaultTimeout(5_000);
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  }

  async function logIn(page: Page, role: 'operator' | 'merchant', username: string, password: string): Promise<void> {
    await browser.context.clearCookies(); // each test logs in afresh, whatever the one before left
    await page.goto(`${gw.gateway.url}/console/login?lang=en`);
    await page.check(`input[name=role][value=${role}]`);
    await page.fill('#username', username);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/console\/payments/), page.click('button[type=submit]:has-text("Log in")')]);
  }

  async function logOut(page: Page): Promise<void> {
    await Promise.all([page.waitForURL(/loggedout=1/), page.click('header button[type=submit]')]);
  }

  test('the login form, in Thai', async () => {
    const page = await phonePage();
    await page.goto(`${gw.gateway.url}/console/login?lang=th`);
    await checkPage(page, 'login');
    await page.close();
  });

  test('operator: every page fits the screen, key fields first', async () => {
    const page = await phonePage();
    await logIn(page, 'operator', 'somchai', OPERATOR_PASSWORD);
    const url = gw.gateway.url;

    await page.goto(`${url}/console/payments?lang=en`);
    await checkPage(page, 'payments');
    await onScreen(page, 'main td .pill', 'Success', "the payment's state");
    await onScreen(page, 'main td', '฿1,250,000.00', 'the amount');
    assert.match((await page.evaluate(FIRST_CARD_TOP)) as string, /order-2026-000/, 'the trackid opens the card');

    await page.goto(`${url}/console/payments/${paid}`);
    await checkPage(page, 'payment-detail');
    await onScreen(page, '#notification td', 'HTTP 500', "the notification attempt's result");
    await onScreen(page, '#notification button', 'Resend', 'Resend');
    await onScreen(page, '#refunds td', 'rfd_', 'the refund');
    await onScreen(page, '#refunds button', 'Refund', 'Refund');
    await onScreen(page, 'main td', '-100.0000 THB', 'the refund posting');
    await accountNamesWrapAtSegments(page, 5);

    await page.goto(`${url}/console/payments/${live}`);
    await checkPage(page, 'payment-processor');
    await onScreen(page, '#processor td', 'KBQR00000000190', "the processor's reference");

    await page.goto(`${url}/console/deliveries?status=all`);
    await checkPage(page, 'deliveries');
    await onScreen(page, 'main td a', paid, 'the payment link of a notification');
    await onScreen(page, 'main td .pill', /pending|failed/, 'the notification state');

    await page.goto(`${url}/console/balances?merchant=${shop.merchantid}`);
    await checkPage(page, 'balances');
    await onScreen(page, 'main td', '1,228,025.0000 THB', 'the payout balance');
    await onScreen(page, 'main td', '-100.0000 THB', 'a posting amount');
    // Account names wrap at their segments (after `:` or `-`), a few lines at most.
    await accountNamesWrapAtSegments(page, 1);

    await page.goto(`${url}/console/merchants`);
    await checkPage(page, 'merchants');
    await onScreen(page, 'main td button', 'Disable', "a merchant's action buttons");
    await onScreen(page, 'main td button', 'console password', "a merchant's action buttons");

    await page.goto(`${url}/console/audit`);
    await checkPage(page, 'audit');
    await onScreen(page, 'main td.mono', /^login$/, 'an audited action');

    await page.goto(`${url}/console/attention`);
    await checkPage(page, 'attention');
    await onScreen(page, 'main td', 'Transferred 500.00', 'a resolved item');
    await logOut(page);
    await page.close();
  });

  test('merchant: every page fits the screen, key fields first', async () => {
    const page = await phonePage();
    await logIn(page, 'merchant', shop.merchantid, shopConsolePassword);
    const url = gw.gateway.url;

    await page.goto(`${url}/console/payments?lang=en`);
    await checkPage(page, 'payments-merchant');
    await onScreen(page, 'main td .pill', 'Success', "the payment's state");

    await page.goto(`${url}/console/payments/${paid}`);
    await checkPage(page, 'payment-detail-merchant');
    await onScreen(page, '#refunds td', 'rfd_', 'the refund');

    await page.goto(`${url}/console/deliveries?status=all`);
    await checkPage(page, 'deliveries-merchant');
    await onScreen(page, 'main td a', paid, 'the payment link of a notification');

    await page.goto(`${url}/console/balances`);
    await checkPage(page, 'balances-merchant');
    await onScreen(page, 'main td', '-100.0000 THB', 'a posting amount');
    await logOut(page);
    await page.close();
  });

  test('no page broke its CSP or threw', () => {
    assert.deepEqual(problems, []);
  });
});
