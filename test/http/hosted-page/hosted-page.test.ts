// GET /transaction/Redirect and its form posts and status route (docs/hosted-page.md), on both
// stores: content in both languages, the Thai QR it shows, headers, CSRF, 404 pages, the
// result page, the return URL (keeping the merchant's query) and expiry. Live mode, with a
// bank's QR: live-page.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formSecrets, get, postForm, type Page } from '../../support/hosted-page-form.ts';
import { renderQrSvg } from '../../../src/http/hosted-page/qr-svg.ts';
import { returnUrlFor } from '../../../src/http/hosted-page/return-url.ts';
import { thaiQrReferenceFor, verifyThaiQrPayload, buildThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { snapshot, startPayment, type Started } from '../../support/lifecycle.ts';

const pageUrl = (p: Started, extra = ''): string => `/transaction/Redirect?ID=${p.redirectId}${extra}`;

function nonceOf(page: Page): string {
  const csp = String(page.headers['content-security-policy']);
  const match = /script-src 'nonce-([^']+)'/.exec(csp);
  assert.ok(match, csp);
  return match[1]!;
}

function assertPageHeaders(page: Page): void {
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  assert.equal(page.headers['cache-control'], 'no-store');
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
}

function assertFriendly404(page: Page): void {
  assert.equal(page.status, 404);
  assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
  assert.match(page.body, /Payment page not found/);
  assert.doesNotMatch(page.body, /"error_code_tag"|at .*\.ts:\d+|Error:/, 'no JSON, no stack trace');
  assertPageHeaders(page);
}

test('returnUrlFor keeps the existing query byte for byte and the fragment at the end', () => {
  const t = {
    status: 'FAILED' as const,
    trackid: 'T 1&2',
    id: 'tx-1',
    errorText: 'The customer cancelled the payment.',
  };
  assert.equal(
    returnUrlFor('https://shop.example/r?order=187&note=a%20b+c', t),
    'https://shop.example/r?order=187&note=a%20b+c&result=Not%20Successful&responsecode=6&trackid=T%201%262' +
      '&transactionid=tx-1&responsedescription=The%20customer%20cancelled%20the%20payment.',
  );
  assert.equal(returnUrlFor('https://shop.example/r', t).split('?')[1]?.split('&')[0], 'result=Not%20Successful');
  assert.match(returnUrlFor('https://shop.example/r?', t), /\/r\?result=/);
  assert.match(returnUrlFor('https://shop.example/r?a=1&', t), /\?a=1&result=/);
  assert.match(returnUrlFor('https://shop.example/r?a=1#done', t), /\?a=1&result=.*responsedescription=[^#]*#done$/);
  const success = new URL(
    returnUrlFor('https://shop.example/r?order=187', { ...t, status: 'SUCCESS', errorText: null }),
  );
  assert.equal(success.searchParams.get('result'), 'CAPTURED');
  assert.equal(success.searchParams.get('responsecode'), '0');
  assert.equal(success.searchParams.get('order'), '187');
});

for (const { dialect, skip } of await testDialects()) {
  describe(`hosted page [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    test(
      'English page: merchant, amount, trackid, bank, ' + 'masked account, countdown, sandbox buttons, no PII',
      async () => {
        const p = await startPayment(gw, creds, {
          bill_amount: '1000',
          lang: 'en',
          payer_account_no: '4455669012',
          payer_bank_code: 'SCB',
          productdesc: 'Order <b>#7</b>',
        });
        const page = await get(gw, pageUrl(p));
        assert.equal(page.status, 200);
        assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
        assertPageHeaders(page);
        assert.match(page.body, /<html lang="en">/);
        assert.match(page.body, /Test Shop/);
        assert.match(page.body, /<p class="amount" id="amount">฿1,000\.00<\/p>/);
        assert.match(page.body, new RegExp(`>${p.trackid}<`));
        assert.match(page.body, /Siam Commercial Bank/);
        assert.match(page.body, /•••• 9012/);
        assert.match(page.body, /Order &lt;b&gt;#7&lt;\/b&gt;/, 'merchant text is escaped');
        assert.match(page.body, /<strong id="countdown">15:00<\/strong>/);
        assert.match(page.body, /id="confirm"/);
        assert.match(page.body, /id="cancel"/);
        for (const pii of ['4455669012', 'Malee', 'buyer@example.com', '2001:db8::42'])
          assert.ok(!page.body.includes(pii), `no ${pii} on the page`);
      },
    );

    test('Thai by the transaction lang, switchable with ?lang=; default Thai', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '1000', lang: 'th' });
      const th = await get(gw, pageUrl(p));
      assert.match(th.body, /<html lang="th">/);
      assert.match(th.body, /ยอดชำระ/);
      assert.match(th.body, /ธนาคารกสิกรไทย/);
      assert.match(th.body, new RegExp(`href="/transaction/Redirect\\?ID=${p.redirectId}&amp;lang=en" hreflang="en"`));
      const en = await get(gw, pageUrl(p, '&lang=en'));
      assert.match(en.body, /<html lang="en">/);
      assert.match(en.body, /Kasikornbank/);
      const noLang = await startPayment(gw, creds, { bill_amount: '1000' });
      assert.match((await get(gw, pageUrl(noLang, '&lang=xx'))).body, /<html lang="th">/);
    });

    test('every <script> and <style> carries the response nonce; nonces differ per response', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '1000' });
      const a = await get(gw, pageUrl(p));
      const b = await get(gw, pageUrl(p));
      const nonce = nonceOf(a);
      assert.notEqual(nonce, nonceOf(b));
      const tags = a.body.match(/<(script|style)\b[^>]*>/g) ?? [];
      assert.ok(tags.length >= 2);
      for (const tag of tags) assert.ok(tag.includes(`nonce="${nonce}"`), tag);
      assert.doesNotMatch(a.body, /\sstyle="|\son[a-z]+="/, 'no inline style or event-handler attributes');
    });

    test("the page's QR is the Thai QR for this transaction: TLV + CRC valid, amount and reference right", async () => {
      const p = await startPayment(gw, creds, { bill_amount: '1234.5' });
      const page = await get(gw, pageUrl(p));
      const shownSvg = /<svg[\s\S]*?<\/svg>/.exec(page.body)?.[0];
      assert.ok(shownSvg);
      const payload = buildThaiQrPayload({
        billerId: gw.config.thaiQrBillerId,
        reference1: thaiQrReferenceFor(p.transactionid),
        amountMinor: 12_345_000n,
        merchantName: 'Test Shop',
      });
      const parsed = verifyThaiQrPayload(payload);
      assert.ok(parsed.ok, parsed.errors.join('; '));
      assert.equal(parsed.fields['54'], '1234.50');
      assert.equal(parsed.fields['53'], '764');
      assert.equal(parsed.fields['58'], 'TH');
      assert.equal(parsed.fields['01'], '12', 'dynamic QR');
      assert.equal(parsed.billPayment['01'], gw.config.thaiQrBillerId);
      assert.equal(parsed.billPayment['02'], thaiQrReferenceFor(p.transactionid));
      const strip = (svg: string) => svg.replace(/ aria-label="[^"]*"/, '');
      assert.equal(
        strip(shownSvg),
        strip(await renderQrSvg(payload)),
        'the SVG on the page encodes exactly this payload',
      );
    });

    test('unknown, malformed, missing or repeated IDs → friendly HTML 404', async () => {
      assertFriendly404(await get(gw, '/transaction/Redirect?ID=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      assertFriendly404(await get(gw, '/transaction/Redirect?ID=short'));
      assertFriendly404(await get(gw, '/transaction/Redirect?ID=%3Cscript%3Ealert(1)%3C%2Fscript%3Exxxxxxxxxx'));
      assertFriendly404(await get(gw, '/transaction/Redirect'));
      assertFriendly404(await get(gw, '/transaction/Redirect?ID=a&ID=b'));
      assertFriendly404(await get(gw, `/transaction/Redirect?ID=${'x'.repeat(500)}`));
      const status = await get(gw, '/transaction/Redirect/status?ID=nope');
      assert.equal(status.status, 404);
      assert.deepEqual(JSON.parse(status.body), { state: null, returnUrl: null });
    });

    test('confirm with a valid CSRF token → 303 to returnUrl with the result, keeping ?order=187', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '9999.99' });
      const page = await get(gw, pageUrl(p));
      const { cookie, csrf } = formSecrets(page);
      const res = await postForm(
        gw,
        '/transaction/Redirect/confirm',
        { ID: p.redirectId, csrf, lang: 'en' },
        { cookie },
      );
      assert.equal(res.status, 303);
      const location = String(res.headers.location);
      assert.ok(location.startsWith('https://merchant.example/return?order=187&result=CAPTURED&'), location);
      const back = new URL(location);
      assert.equal(back.searchParams.get('responsecode'), '0');
      assert.equal(back.searchParams.get('trackid'), p.trackid);
      assert.equal(back.searchParams.get('transactionid'), p.transactionid);
      assert.ok(back.searchParams.get('responsedescription'));
      const s = await snapshot(gw, p.transactionid);
      assert.equal(s.status, 'SUCCESS');
      assert.equal(s.transitions[0]?.cause, 'confirm');
    });

    test('cancel → 303 with Not Successful / 6 / CANCELLED description', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
      const res = await postForm(gw, '/transaction/Redirect/cancel', { ID: p.redirectId, csrf }, { cookie });
      assert.equal(res.status, 303);
      const back = new URL(String(res.headers.location));
      assert.equal(back.searchParams.get('order'), '187');
      assert.equal(back.searchParams.get('result'), 'Not Successful');
      assert.equal(back.searchParams.get('responsecode'), '6');
      assert.match(back.searchParams.get('responsedescription') ?? '', /cancelled/);
      assert.equal((await snapshot(gw, p.transactionid)).transitions[0]?.cause, 'cancel');
    });

    test(
      'CSRF: no cookie, wrong token, a token for another ' + 'payment, a cross-site post → 403 page, nothing changes',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '100' });
        const other = await startPayment(gw, creds, { bill_amount: '100' });
        const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
        const otherSecrets = formSecrets(await get(gw, pageUrl(other)));
        const attempts = [
          await postForm(gw, '/transaction/Redirect/confirm', { ID: p.redirectId, csrf }),
          await postForm(
            gw,
            '/transaction/Redirect/confirm',
            { ID: p.redirectId, csrf: csrf.slice(0, -2) + 'AA' },
            { cookie },
          ),
          await postForm(gw, '/transaction/Redirect/confirm', { ID: p.redirectId }, { cookie }),
          await postForm(
            gw,
            '/transaction/Redirect/confirm',
            { ID: p.redirectId, csrf: otherSecrets.csrf },
            { cookie: otherSecrets.cookie },
          ),
          await postForm(
            gw,
            '/transaction/Redirect/confirm',
            { ID: p.redirectId, csrf },
            { cookie: otherSecrets.cookie },
          ),
          await postForm(
            gw,
            '/transaction/Redirect/cancel',
            { ID: p.redirectId, csrf },
            { cookie, 'sec-fetch-site': 'cross-site' },
          ),
        ];
        for (const res of attempts) {
          assert.equal(res.status, 403);
          assert.match(String(res.headers['content-type']), /^text\/html/);
          assert.match(res.body, /did not come from the payment page/);
          assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
        }
        const s = await snapshot(gw, p.transactionid);
        assert.equal(s.status, 'PROCESSING');
        assert.equal(s.transitions.length, 0);
      },
    );

    test('the CSRF cookie is HttpOnly and SameSite=Strict, and is reused rather than replaced', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const first = await get(gw, pageUrl(p));
      assert.match(
        String(first.headers['set-cookie']),
        /^gw_csrf=[A-Za-z0-9_-]{22}; Path=\/; HttpOnly; SameSite=Strict$/,
      );
      const { cookie } = formSecrets(first);
      const second = await get(gw, pageUrl(p), { cookie });
      assert.equal(second.headers['set-cookie'], undefined);
    });

    test(
      'a final transaction: the page shows the result ' + 'with the way back; posting again → 303 to the page',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '15000', lang: 'en' });
        const { cookie, csrf } = formSecrets(await get(gw, pageUrl(p)));
        await post(gw, '/sandbox/transaction/complete', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: p.transactionid,
        });
        const page = await get(gw, pageUrl(p));
        assert.equal(page.status, 200);
        assertPageHeaders(page);
        assert.match(page.body, /Payment not successful/);
        assert.match(page.body, /declined/);
        assert.doesNotMatch(page.body, /id="confirm"/);
        const href = /id="return" href="([^"]+)"/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
        assert.ok(
          href?.startsWith('https://merchant.example/return?order=187&result=Not%20Successful&responsecode=6&'),
          href,
        );

        const before = await snapshot(gw, p.transactionid);
        const again = await postForm(
          gw,
          '/transaction/Redirect/confirm',
          { ID: p.redirectId, csrf, lang: 'en' },
          { cookie },
        );
        assert.equal(again.status, 303);
        assert.equal(again.headers.location, `/transaction/Redirect?ID=${p.redirectId}&lang=en`);
        assert.deepEqual(await snapshot(gw, p.transactionid), before);
      },
    );

    test('status route: only state and return URL, no-store', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const processing = await get(gw, `/transaction/Redirect/status?ID=${p.redirectId}`);
      assert.equal(processing.status, 200);
      assert.equal(processing.headers['cache-control'], 'no-store');
      assert.deepEqual(JSON.parse(processing.body), { state: 'PROCESSING', returnUrl: null });
      await gw.services.complete.execute(p.transactionid, 'confirm');
      const final = JSON.parse((await get(gw, `/transaction/Redirect/status?ID=${p.redirectId}`)).body);
      assert.deepEqual(Object.keys(final), ['state', 'returnUrl']);
      assert.equal(final.state, 'SUCCESS');
      assert.equal(new URL(final.returnUrl).searchParams.get('result'), 'CAPTURED');
      assert.equal(new URL(final.returnUrl).searchParams.get('order'), '187');
    });

    test(
      'past the TTL the page and the status route show the ' + 'payment as expired (finalised through the use case)',
      async () => {
        const p = await startPayment(gw, creds, { bill_amount: '100', lang: 'en' });
        gw.clock.now += gw.config.transactionTtlMs - 61_000;
        assert.match((await get(gw, pageUrl(p))).body, /<strong id="countdown">1:01<\/strong>/);
        gw.clock.now += 61_000;
        const status = JSON.parse((await get(gw, `/transaction/Redirect/status?ID=${p.redirectId}`)).body);
        assert.equal(status.state, 'FAILED');
        const page = await get(gw, pageUrl(p));
        assert.match(page.body, /not completed before the code expired/);
        const s = await snapshot(gw, p.transactionid);
        assert.deepEqual(
          s.transitions.map((t) => [t.cause, t.errorCodeTag]),
          [['expire', 'EXPIRED']],
        );
        assert.equal(s.outbox.length, 1);
      },
    );

    test('the JSON API still refuses form-encoded bodies with its own error shape (415)', async () => {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/transaction/s2s',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'merchantid=x&password=y',
      });
      assert.equal(res.statusCode, 415);
      assert.equal(res.json().error_code_tag, 'MALFORMED_REQUEST');
      assert.equal(res.json().responsecode, '2000');
    });

    test('a form post with an unsupported body type gets an HTML error page, not JSON', async () => {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/transaction/Redirect/confirm',
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });
      assert.equal(res.statusCode, 415);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    });
  });
}
