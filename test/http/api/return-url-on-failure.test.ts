// returnUrl_on_failure (docs/hosted-page.md "Back to the merchant"), on both stores: stored at
// initiation (validated like returnUrl; "" means absent), used for failed, cancelled and expired
// payments (the 303 after Cancel/Confirm, the status poll and the result page's link), never for a
// successful one; part of the idempotency content only when given.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { assertErrorBody } from '../../support/error-body.ts';
import { get, pressButton } from '../../support/hosted-page-form.ts';
import { startPayment } from '../../support/lifecycle.ts';
import { canonicalRequest } from '../../../src/app/initiate-payment.ts';
import type { NormalisedInitiation } from '../../../src/domain/initiation-request.ts';

const FAILURE_URL = 'https://shop.example.co.th/checkout/order-pay/4711/?pay_for_order=true&k2p-status=failed';

for (const { dialect, skip } of await testDialects()) {
  describe(`returnUrl_on_failure [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const stored = async (transactionid: string) =>
      (await gw.services.transactions.findById(creds.merchantid, transactionid))!;
    const withFailureUrl = (extra: Record<string, unknown> = {}) =>
      startPayment(gw, creds, { returnUrl_on_failure: FAILURE_URL, ...extra });

    test('stored at initiation; "", null and absent mean "use returnUrl"', async () => {
      assert.equal((await stored((await withFailureUrl()).transactionid)).returnUrlOnFailure, FAILURE_URL);
      for (const value of ['', '   ', null, undefined]) {
        const p = await startPayment(gw, creds, { returnUrl_on_failure: value });
        assert.equal((await stored(p.transactionid)).returnUrlOnFailure, null, String(value));
      }
    });

    test('validated like returnUrl → 400 INVALID_FIELD naming returnUrl_on_failure, nothing stored', async () => {
      for (const bad of [
        'ftp://shop.example/x',
        'shop.example/fail',
        'https://',
        'javascript:alert(1)',
        'https://shop.example/a b',
        42,
        `https://shop.example/${'x'.repeat(2050)}`,
      ]) {
        const trackid = `rof-bad-${Math.random().toString(36).slice(2)}`;
        const res = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid, returnUrl_on_failure: bad }));
        assertErrorBody(res, {
          status: 400,
          code: '2002',
          tag: 'INVALID_FIELD',
          field: "'returnUrl_on_failure'",
          trackid,
        });
        assert.equal(await gw.services.transactions.findByTrackid(creds.merchantid, trackid), undefined);
      }
    });

    test('Cancel → 303 to returnUrl_on_failure with the result appended, its own query kept', async () => {
      const p = await withFailureUrl({ bill_amount: '100' });
      const res = await pressButton(gw, p.redirectId, 'cancel');
      assert.equal(res.status, 303);
      const location = String(res.headers.location);
      assert.ok(location.startsWith(`${FAILURE_URL}&result=Not%20Successful&responsecode=6&`), location);
      assert.equal(new URL(location).searchParams.get('transactionid'), p.transactionid);
      // The CSP of the page allowed the redirect to that origin.
      const page = await get(gw, `/transaction/Redirect?ID=${(await withFailureUrl()).redirectId}`);
      assert.match(
        String(page.headers['content-security-policy']),
        /form-action 'self' https:\/\/merchant\.example https:\/\/shop\.example\.co\.th;/,
      );
    });

    test(
      'a declined Confirm (above the sandbox limit) → ' + 'returnUrl_on_failure; a successful one → returnUrl',
      async () => {
        const declined = await withFailureUrl({ bill_amount: '15000' });
        const res = await pressButton(gw, declined.redirectId, 'confirm');
        assert.ok(
          String(res.headers.location).startsWith(`${FAILURE_URL}&result=Not%20Successful`),
          String(res.headers.location),
        );
        const ok = await withFailureUrl({ bill_amount: '150' });
        const success = await pressButton(gw, ok.redirectId, 'confirm');
        assert.ok(
          String(success.headers.location).startsWith('https://merchant.example/return?order=187&result=CAPTURED'),
          String(success.headers.location),
        );
      },
    );

    test('expired: the status poll and the result page send the customer to returnUrl_on_failure', async () => {
      const p = await withFailureUrl();
      gw.clock.now += 16 * 60_000;
      try {
        const status = (
          await gw.app.inject({ method: 'GET', url: `/transaction/Redirect/status?ID=${p.redirectId}` })
        ).json() as { state: string; returnUrl: string };
        assert.equal(status.state, 'FAILED');
        assert.ok(status.returnUrl.startsWith(`${FAILURE_URL}&result=Not%20Successful`), status.returnUrl);
        const page = await get(gw, `/transaction/Redirect?ID=${p.redirectId}&lang=en`);
        assert.match(
          page.body,
          new RegExp(
            'id="return" href="https:\\/\\/shop\\.example\\.co\\.th\\/checkout\\/order-pay\\/4711\\/' +
              '\\?pay_for_order=true&amp;k2p-status=failed&amp;result=Not%20Successful',
          ),
        );
      } finally {
        gw.clock.now -= 16 * 60_000;
      }
    });

    test('without it, a failed payment goes to returnUrl as before', async () => {
      const p = await startPayment(gw, creds, { bill_amount: '100' });
      const res = await pressButton(gw, p.redirectId, 'cancel');
      assert.ok(
        String(res.headers.location).startsWith('https://merchant.example/return?order=187&result=Not%20Successful'),
      );
    });

    test(
      'idempotency: part of the content when given (another failure ' +
        'URL → 409); absent hashes as before the field existed',
      async () => {
        const p = await withFailureUrl();
        const replay = await post(
          gw,
          '/transaction/s2s',
          initiationBody(creds, { trackid: p.trackid, returnUrl_on_failure: FAILURE_URL }),
        );
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        const changed = await post(
          gw,
          '/transaction/s2s',
          initiationBody(creds, { trackid: p.trackid, returnUrl_on_failure: 'https://shop.example.co.th/other' }),
        );
        assertErrorBody(changed, { status: 409, code: '3000', tag: 'DUPLICATE_TRACKID' });
        const input = { trackid: 't', amountMinor: 1n, returnUrlOnFailure: null } as unknown as NormalisedInitiation;
        assert.doesNotMatch(canonicalRequest('m', input), /returnUrlOnFailure/);
        assert.match(canonicalRequest('m', { ...input, returnUrlOnFailure: FAILURE_URL }), /returnUrlOnFailure/);
      },
    );
  });
}
