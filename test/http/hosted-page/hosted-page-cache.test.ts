// The hosted page is rendered once per (transaction, language, state) and filled per response
// (src/http/hosted-page/page-cache.ts). On both stores: what must still differ per response
// does (nonce, CSRF token bound to its cookie, countdown), and a page rendered before the
// payment changed (completed, cancelled, expired, refunded, merchant renamed) is never shown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formSecrets, get, postForm, type Page } from '../../support/hosted-page-form.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { startPayment, type Started } from '../../support/lifecycle.ts';

const pageUrl = (p: Started, extra = ''): string => `/transaction/Redirect?ID=${p.redirectId}${extra}`;

function headerNonce(page: Page): string {
  const csp = String(page.headers['content-security-policy']);
  const script = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  const style = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(script && script === style, csp);
  return script;
}

/** Every nonce attribute in the body equals the CSP's, and nothing of the cache's markers leaks. */
function assertOneNonce(page: Page): string {
  const nonce = headerNonce(page);
  const inBody = [...page.body.matchAll(/\snonce="([^"]*)"/g)].map((m) => m[1]);
  assert.ok(inBody.length >= 1);
  for (const n of inBody) assert.equal(n, nonce);
  assert.doesNotMatch(page.body, /gwslot/);
  assert.doesNotMatch(String(page.headers['content-security-policy']), /gwslot/);
  return nonce;
}

for (const { dialect, skip } of await testDialects()) {
  describe(`hosted page cache [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    test('repeated GETs of one page: a new nonce every time, the same in the header and in every tag', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      const nonces = new Set<string>();
      let firstBody: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await get(gw, pageUrl(p));
        assert.equal(page.status, 200);
        assert.equal(page.headers['content-length'], String(Buffer.byteLength(page.body)));
        const nonce = assertOneNonce(page);
        nonces.add(nonce);
        // Apart from the per-response values, every response is the same page.
        const normalised = page.body.replaceAll(nonce, 'N').replace(/name="csrf" value="[^"]+"/g, 'csrf');
        firstBody ??= normalised;
        assert.equal(normalised, firstBody);
      }
      assert.equal(nonces.size, 20);
    });

    test('the countdown is the time left at this response, not at the first render', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      const first = await get(gw, pageUrl(p));
      assert.match(first.body, /<strong id="countdown">15:00<\/strong>/);
      assert.match(first.body, /data-remaining-ms="900000"/);
      gw.clock.now += 61_500;
      const later = await get(gw, pageUrl(p));
      assert.match(later.body, /<strong id="countdown">13:59<\/strong>/);
      assert.match(later.body, /data-remaining-ms="838500"/);
      gw.clock.now -= 61_500;
    });

    test('each browser gets its own CSRF cookie and a token that works only with that cookie', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const a = formSecrets(await get(gw, pageUrl(p)));
      const b = formSecrets(await get(gw, pageUrl(p)));
      assert.notEqual(a.cookie, b.cookie);
      assert.notEqual(a.csrf, b.csrf);
      // A browser that already has its cookie gets the token for it again (and no new cookie).
      const again = await get(gw, pageUrl(p), { cookie: a.cookie });
      assert.equal(again.headers['set-cookie'], undefined);
      assert.equal(/name="csrf" value="([^"]+)"/.exec(again.body)?.[1], a.csrf);
      const crossed = await postForm(
        gw,
        '/transaction/Redirect/confirm',
        { ID: p.redirectId, csrf: a.csrf },
        { cookie: b.cookie },
      );
      assert.equal(crossed.status, 403);
      const own = await postForm(
        gw,
        '/transaction/Redirect/confirm',
        { ID: p.redirectId, csrf: b.csrf },
        { cookie: b.cookie },
      );
      assert.equal(own.status, 303);
    });

    test(
      'a page seen while open is not shown once the payment ' + 'succeeded, then was refunded in part and in full',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
        for (const lang of ['en', 'th'])
          assert.match((await get(gw, pageUrl(p, `&lang=${lang}`))).body, /id="confirm"/);
        const done = await post(gw, '/sandbox/transaction/complete', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: p.transactionid,
          outcome: 'success',
        });
        assert.equal(done.status, 200, done.raw);
        const success = await get(gw, pageUrl(p));
        assert.doesNotMatch(success.body, /id="confirm"|id="qr"/);
        assert.match(success.body, /id="return"/);
        assert.doesNotMatch(success.body, /refunded/i);
        assert.equal(success.headers['set-cookie'], undefined, 'the result page has no forms and sets no CSRF cookie');
        assertOneNonce(success);
        assert.doesNotMatch((await get(gw, pageUrl(p, '&lang=th'))).body, /id="confirm"/);

        const refund = (amount: string) =>
          post(gw, '/transaction/refund', {
            merchantid: creds.merchantid,
            password: creds.password,
            transactionid: p.transactionid,
            bill_amount: amount,
            bill_currencycode: 'THB',
          });
        assert.equal((await refund('20')).status, 200);
        assert.match((await get(gw, pageUrl(p))).body, /The merchant refunded ฿20\.00 of this ฿100\.00 payment\./);
        assert.equal((await refund('80')).status, 200);
        assert.match((await get(gw, pageUrl(p))).body, /refunded this payment in full \(฿100\.00\)/);
      },
    );

    test('a page seen while open is not shown after a cancel or after the deadline', async () => {
      const cancelled = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      const secrets = formSecrets(await get(gw, pageUrl(cancelled)));
      assert.equal(
        (
          await postForm(
            gw,
            '/transaction/Redirect/cancel',
            { ID: cancelled.redirectId, csrf: secrets.csrf },
            { cookie: secrets.cookie },
          )
        ).status,
        303,
      );
      const result = await get(gw, pageUrl(cancelled));
      assert.match(result.body, /Payment not successful/);
      assert.doesNotMatch(result.body, /id="cancel"/);

      const expiring = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      assert.match((await get(gw, pageUrl(expiring))).body, /id="qr"/);
      gw.clock.now += gw.config.transactionTtlMs;
      try {
        const expired = await get(gw, pageUrl(expiring));
        assert.match(expired.body, /not completed before the code expired/);
        assert.doesNotMatch(expired.body, /id="qr"/);
      } finally {
        gw.clock.now -= gw.config.transactionTtlMs;
      }
    });

    test('a renamed merchant: the open page shows the new name (and a QR with it)', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      const before = await get(gw, pageUrl(p));
      assert.match(before.body, /<h1 class="merchant" id="merchant-name">Test Shop<\/h1>/);
      const qrBefore = /<svg[\s\S]*?<\/svg>/.exec(before.body)?.[0];
      await gw.testStore.db
        .updateTable('merchants')
        .set({ name: 'Renamed Shop', updated_at: gw.clock.now + 1 })
        .where('id', '=', creds.merchantid)
        .execute();
      await gw.services.directory.refresh();
      try {
        const after = await get(gw, pageUrl(p));
        assert.match(after.body, /<h1 class="merchant" id="merchant-name">Renamed Shop<\/h1>/);
        assert.notEqual(/<svg[\s\S]*?<\/svg>/.exec(after.body)?.[0], qrBefore, 'the QR carries the merchant name too');
      } finally {
        await gw.testStore.db
          .updateTable('merchants')
          .set({ name: 'Test Shop', updated_at: gw.clock.now + 2 })
          .where('id', '=', creds.merchantid)
          .execute();
        await gw.services.directory.refresh();
      }
    });

    test('two payments never share a page', async () => {
      const a = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
      const b = await startPayment(gw, creds, { bill_amount: '200', lang: 'en' });
      const pageA = await get(gw, pageUrl(a));
      const pageB = await get(gw, pageUrl(b));
      assert.match(pageA.body, new RegExp(`>${a.trackid}<`));
      assert.match(pageA.body, /฿100\.00/);
      assert.doesNotMatch(pageA.body, new RegExp(`>${b.trackid}<`));
      assert.match(pageB.body, new RegExp(`>${b.trackid}<`));
      assert.match(pageB.body, /฿200\.00/);
    });
  });
}
