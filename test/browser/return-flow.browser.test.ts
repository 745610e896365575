// The return to the shop in a real browser (Debian's Chromium), on both stores
// (docs/hosted-page.md "Back to the merchant", docs/notifications.md "How it works"):
// - the browser follows the 303 after Confirm only once the shop's notification endpoint, a
//   real local server answering slowly, has the result (the shop's thank-you page can show it);
// - an endpoint that never answers does not strand the customer: the redirect comes after
//   RETURN_WAIT_FOR_NOTIFICATION;
// - Cancel sends the customer to returnUrl_on_failure, on another origin (the page's CSP
//   form-action must allow it, or Chromium would block the redirect).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { testDialects } from '../support/dialects.ts';
import { initiation } from '../support/running-gateway.ts';
import { deliveryWorker } from '../../src/delivery/delivery-worker.ts';
import {
  addShop,
  browserSkipReason,
  launchBrowser,
  startListeningGateway,
  type Browser,
  type ListeningGateway,
} from '../support/browser.ts';

const skip = browserSkipReason();
const SLOW_MS = 400;

/** A shop: /notify-slow answers after SLOW_MS, /notify-hang never; every event goes into one ordered log. */
class Shop {
  readonly log: string[] = [];
  readonly #server: Server;
  url = '';
  constructor() {
    this.#server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      req.resume();
      if (path === '/notify-slow') {
        this.log.push('notification received');
        setTimeout(() => {
          this.log.push('notification answered');
          res.writeHead(200).end('ok');
        }, SLOW_MS);
        return;
      }
      if (path === '/notify-hang') {
        this.log.push('notification received');
        return; // never answers
      }
      if (path !== '/favicon.ico') this.log.push(`landing ${path}`);
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Shop</title><h1>Thank you</h1>');
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }
  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

for (const { dialect, skip: storeSkip } of await testDialects()) {
  describe(`return to the shop in Chromium [${dialect}]`, { skip: skip || storeSkip, timeout: 120_000 }, () => {
    let gw: ListeningGateway;
    let shop: Shop;
    let failureSite: Shop;
    let browser: Browser;
    let creds: { merchantid: string; password: string };

    before(async () => {
      shop = await new Shop().start();
      failureSite = await new Shop().start();
      gw = await startListeningGateway(
        { RETURN_WAIT_FOR_NOTIFICATION: '1500ms', DELIVERY_TIMEOUT: '20s', DELIVERY_LEASE: '30s' },
        { dialect, workers: [deliveryWorker] },
      );
      creds = await addShop(gw);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await shop?.close(); // ends the hanging notification, so the gateway can stop
      await failureSite?.close();
      await gw?.close();
    });

    async function initiate(notifyPath: string, extra: Record<string, unknown> = {}): Promise<{ redirectUrl: string }> {
      const body = {
        ...initiation(creds, `${shop.url}${notifyPath}`, `ret-${Math.random().toString(36).slice(2, 10)}`),
        returnUrl: `${shop.url}/return?order=187`,
        payer_bank_code: 'Kasikorn Bank',
        lang: 'en',
        ...extra,
      };
      const response = await fetch(`${gw.gateway.url}/transaction/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, string>;
      assert.equal(json.responsecode, '9', JSON.stringify(json));
      return { redirectUrl: json.redirectUrl! };
    }

    async function press(
      redirectUrl: string,
      button: '#confirm' | '#cancel',
      landingPrefix: string,
    ): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(redirectUrl);
      await Promise.all([page.waitForURL(`${landingPrefix}**`, { timeout: 30_000 }), page.click(button)]);
      return { page, problems };
    }

    test(
      'a slow notification endpoint: the browser lands on returnUrl ' + 'only after the shop answered the notification',
      async () => {
        shop.log.length = 0;
        const tx = await initiate('/notify-slow');
        const { page, problems } = await press(tx.redirectUrl, '#confirm', `${shop.url}/return`);
        assert.equal(new URL(page.url()).searchParams.get('result'), 'CAPTURED');
        assert.deepEqual(shop.log, ['notification received', 'notification answered', 'landing /return']);
        assert.deepEqual(problems, []);
        await page.close();
      },
    );

    test(
      'a notification endpoint that never answers: ' + 'the browser still lands on returnUrl, after the bound',
      async () => {
        shop.log.length = 0;
        const tx = await initiate('/notify-hang');
        const { page } = await press(tx.redirectUrl, '#confirm', `${shop.url}/return`);
        assert.equal(new URL(page.url()).searchParams.get('result'), 'CAPTURED');
        assert.deepEqual(
          shop.log,
          ['notification received', 'landing /return'],
          'the notification is still unanswered when the customer arrives',
        );
        await page.close();
      },
    );

    test('Cancel sends the customer to returnUrl_on_failure on another origin, with the result appended', async () => {
      shop.log.length = 0;
      failureSite.log.length = 0;
      const tx = await initiate('/notify-slow', {
        returnUrl_on_failure: `${failureSite.url}/checkout/pay?order=187&k2p-status=failed`,
      });
      const { page, problems } = await press(tx.redirectUrl, '#cancel', `${failureSite.url}/checkout/pay`);
      const landed = new URL(page.url());
      assert.equal(landed.searchParams.get('order'), '187');
      assert.equal(landed.searchParams.get('k2p-status'), 'failed');
      assert.equal(landed.searchParams.get('result'), 'Not Successful');
      assert.equal(landed.searchParams.get('responsecode'), '6');
      assert.deepEqual(failureSite.log, ['landing /checkout/pay']);
      assert.deepEqual(
        shop.log,
        ['notification received', 'notification answered'],
        'the notification went to serverUrl first; returnUrl was not used',
      );
      assert.deepEqual(problems, [], 'no CSP violation on the cross-origin redirect');
      await page.close();
    });
  });
}
