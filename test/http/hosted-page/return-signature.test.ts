// The signed way back to the shop (docs/hosted-page.md "Back to the merchant"), on both stores:
// the 303 after Confirm/Cancel, the status poll's returnUrl and the result page's Return link
// carry `ts` and `signature` after the result parameters (the merchant's query and fragment kept
// where they were), signed with the merchant's webhook secret and verified here by the client
// package's verifyReturn, as a merchant would. A tampered result, another secret, an old ts fail.
// The result page is cached once per state; its link is still signed as of each response.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyReturn } from '../../../packages/client/src/return-signature.ts';
import { generateWebhookSecret } from '../../../src/domain/webhook-signature.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { get, pressButton } from '../../support/hosted-page-form.ts';
import { startPayment } from '../../support/lifecycle.ts';

const RETURN_URL = 'https://shop.example/return?order=187&note=a%20b+c#done';
const RESULT_NAMES = ['result', 'responsecode', 'trackid', 'transactionid', 'responsedescription'];

/** The Return link of a result page, as the browser reads the attribute. */
function returnLink(body: string): string {
  const href = /id="return" href="([^"]+)"/.exec(body)?.[1];
  assert.ok(href, 'the result page has a Return link');
  return href.replaceAll('&amp;', '&');
}

for (const { dialect, skip } of await testDialects()) {
  describe(`signed return URL [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const nowSeconds = () => Math.floor(gw.clock.now / 1000);
    const verify = (url: string, secrets: string | string[] = creds.webhook_secret) =>
      verifyReturn(url, secrets, { nowSeconds: nowSeconds() });

    test('the 303 after Confirm: ts and signature appended last, verified with the secret; others fail', async () => {
      const p = await startPayment(gw, creds, { returnUrl: RETURN_URL, bill_amount: '100' });
      const res = await pressButton(gw, p.redirectId, 'confirm');
      assert.equal(res.status, 303);
      const location = String(res.headers.location);
      // The merchant's query byte for byte, then the five result parameters, then ts and signature.
      assert.ok(location.startsWith('https://shop.example/return?order=187&note=a%20b+c&result=CAPTURED&'), location);
      assert.ok(location.endsWith('#done'), location);
      const names = [...new URL(location).searchParams.keys()];
      assert.deepEqual(names, ['order', 'note', ...RESULT_NAMES, 'ts', 'signature']);
      assert.equal(new URL(location).searchParams.get('ts'), String(nowSeconds()));
      assert.match(new URL(location).searchParams.get('signature')!, /^v1,[A-Za-z0-9+/]{43}=$/);

      const ok = verify(location);
      assert.ok(ok.ok, JSON.stringify(ok));
      assert.deepEqual(ok.params, {
        result: 'CAPTURED',
        responsecode: '0',
        trackid: p.trackid,
        transactionid: p.transactionid,
        responsedescription: 'The payment was captured.',
      });
      assert.deepEqual(verify(location, generateWebhookSecret()), { ok: false, reason: 'no signature matched' });
      assert.deepEqual(verifyReturn(location, creds.webhook_secret, { nowSeconds: nowSeconds() + 3600 }), {
        ok: false,
        reason: 'timestamp too old',
      });
    });

    test('a cancelled result turned into a capture does not verify', async () => {
      const p = await startPayment(gw, creds, { returnUrl: RETURN_URL });
      const location = String((await pressButton(gw, p.redirectId, 'cancel')).headers.location);
      assert.ok(verify(location).ok);
      const forged = location
        .replace('result=Not%20Successful', 'result=CAPTURED')
        .replace('responsecode=6', 'responsecode=0');
      assert.notEqual(forged, location);
      assert.deepEqual(verify(forged), { ok: false, reason: 'no signature matched' });
      // Appending a second result after the signed ones changes what is read: refused too.
      assert.deepEqual(verify(location.replace('#done', '&result=CAPTURED#done')), {
        ok: false,
        reason: 'no signature matched',
      });
      const bare = location.replace(/&ts=[^&#]*&signature=[^&#]*/, '');
      assert.deepEqual(verify(bare), { ok: false, reason: 'missing ts parameter' });
    });

    test("the poll's returnUrl is signed as of the poll", async () => {
      const p = await startPayment(gw, creds, { returnUrl: RETURN_URL });
      await pressButton(gw, p.redirectId, 'cancel');
      gw.clock.now += 90_000;
      const poll = JSON.parse((await get(gw, `/transaction/Redirect/status?ID=${p.redirectId}`)).body);
      assert.equal(poll.state, 'FAILED');
      assert.equal(new URL(poll.returnUrl).searchParams.get('ts'), String(nowSeconds()));
      const ok = verify(poll.returnUrl);
      assert.ok(ok.ok, JSON.stringify(ok));
      assert.equal(ok.params.result, 'Not Successful');
    });

    test("the cached result page's Return link carries a fresh signature on every response", async () => {
      const p = await startPayment(gw, creds, { returnUrl: RETURN_URL });
      await pressButton(gw, p.redirectId, 'confirm');
      const first = returnLink((await get(gw, `/transaction/Redirect?ID=${p.redirectId}`)).body);
      assert.ok(verify(first).ok, first);
      assert.ok(first.endsWith('#done'), first);

      gw.clock.now += 3_600_000; // an hour later the same page (same state: from the cache)
      const later = returnLink((await get(gw, `/transaction/Redirect?ID=${p.redirectId}`)).body);
      assert.equal(new URL(later).searchParams.get('ts'), String(nowSeconds()));
      assert.ok(verify(later).ok, later);
      assert.deepEqual(verify(first), { ok: false, reason: 'timestamp too old' });
      assert.equal(later.replace(/&ts=.*#/, '#'), first.replace(/&ts=.*#/, '#'), 'only ts and signature changed');
    });

    test('during a webhook secret rotation both secrets sign; the new one alone verifies', async () => {
      const merchant = await addMerchant(gw);
      const rotated = await gw.services.manageMerchants.rotateWebhookSecret(merchant.merchantid);
      await gw.services.directory.refresh();
      const p = await startPayment(gw, merchant, { returnUrl: RETURN_URL });
      const location = String((await pressButton(gw, p.redirectId, 'confirm')).headers.location);
      assert.equal(new URL(location).searchParams.get('signature')!.split(' ').length, 2);
      for (const secret of [rotated.webhook_secret, merchant.webhook_secret]) {
        assert.ok(verifyReturn(location, secret, { nowSeconds: nowSeconds() }).ok);
      }
      assert.equal(verifyReturn(location, creds.webhook_secret, { nowSeconds: nowSeconds() }).ok, false);
    });
  });
}
