// verifyReturn in both client libraries (packages/client, packages/php), against return URLs a
// real gateway produced (the 303 after Confirm and after Cancel, on SQLite): the signed result
// verifies from a URL, a query, URLSearchParams, a framework's parsed query and PHP's $_GET, with
// several secrets; another secret, a forged capture, an old ts and a missing signature do not.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyReturn } from '../../packages/client/src/index.ts';
import { generateWebhookSecret } from '../../src/domain/webhook-signature.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { pressButton } from '../support/hosted-page-form.ts';
import { startPayment } from '../support/lifecycle.ts';
import { phpSkipReason, runPhp } from '../support/php.ts';

const RETURN_URL = 'https://shop.example/wc-api/thaiqr?order=4711&key=wc_order_a+b%2F#top';

describe('verifyReturn, Node and PHP clients', () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  let captured: string;
  let failed: string;
  let transactionid: string;
  const other = generateWebhookSecret();

  before(async () => {
    gw = await startTestGateway('sqlite');
    creds = await addMerchant(gw);
    const paid = await startPayment(gw, creds, { returnUrl: RETURN_URL, bill_amount: '100' });
    transactionid = paid.transactionid;
    captured = String((await pressButton(gw, paid.redirectId, 'confirm')).headers.location);
    const cancelled = await startPayment(gw, creds, { returnUrl: RETURN_URL });
    failed = String((await pressButton(gw, cancelled.redirectId, 'cancel')).headers.location);
  });
  after(() => gw?.close());

  const now = () => Math.floor(gw.clock.now / 1000);

  test('Node: every input form verifies and returns the signed values; forgeries and old ones do not', () => {
    const options = { nowSeconds: now() };
    const url = new URL(captured);
    const expected = {
      result: 'CAPTURED',
      responsecode: '0',
      trackid: url.searchParams.get('trackid'),
      transactionid,
      responsedescription: 'The payment was captured.',
    };
    // Express's req.query: a name given twice is an array; the last value counts, as in PHP.
    const parsed: Record<string, string | string[]> = Object.fromEntries(url.searchParams);
    parsed.order = ['1', '4711'];
    for (const input of [captured, url, url.searchParams, url.search, url.search.slice(1), parsed]) {
      const r = verifyReturn(input, [other, creds.webhook_secret], options);
      assert.ok(r.ok, `${String(input)}: ${JSON.stringify(r)}`);
      assert.deepEqual(r.params, expected);
      assert.equal(r.timestamp, now());
    }
    assert.deepEqual(verifyReturn(captured, other, options), { ok: false, reason: 'no signature matched' });
    const forged = failed
      .replace('result=Not%20Successful', 'result=CAPTURED')
      .replace('responsecode=6', 'responsecode=0');
    assert.ok(verifyReturn(failed, creds.webhook_secret, options).ok);
    assert.deepEqual(verifyReturn(forged, creds.webhook_secret, options), {
      ok: false,
      reason: 'no signature matched',
    });
    assert.deepEqual(verifyReturn(captured, creds.webhook_secret, { nowSeconds: now() + 301 }), {
      ok: false,
      reason: 'timestamp too old',
    });
    assert.deepEqual(verifyReturn(captured, creds.webhook_secret, { nowSeconds: now() - 301 }), {
      ok: false,
      reason: 'timestamp too far in the future',
    });
    assert.ok(verifyReturn(captured, creds.webhook_secret, { nowSeconds: now() + 3600, toleranceSeconds: 3600 }).ok);
    const unsigned = captured.replace(/&ts=[^&#]*&signature=[^&#]*/, '');
    assert.deepEqual(verifyReturn(unsigned, creds.webhook_secret, options), {
      ok: false,
      reason: 'missing ts parameter',
    });
    assert.deepEqual(verifyReturn(unsigned.replace('#top', `&ts=${now()}#top`), creds.webhook_secret, options), {
      ok: false,
      reason: 'missing signature parameter',
    });
    assert.deepEqual(verifyReturn(captured, 'whsec_***', options), {
      ok: false,
      reason: 'malformed secret: expected whsec_<base64>',
    });
    assert.deepEqual(verifyReturn(captured, [], options), { ok: false, reason: 'no secret given' });
    assert.deepEqual(verifyReturn('https://shop.example/r?order=1', creds.webhook_secret, options), {
      ok: false,
      reason: 'missing result parameter',
    });
  });

  test(
    'PHP: $_GET and the URL verify; another secret, a forged capture, an old ts and no signature do not',
    { skip: phpSkipReason() },
    async () => {
      const run = await runPhp(
        'php-verify-return.php',
        { WEBHOOK_SECRET: creds.webhook_secret, OTHER_SECRET: other },
        JSON.stringify({ url: captured, failedUrl: failed, now: now() }),
      );
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.equal(run.stderr, '', 'no PHP warnings or notices');
      const signed = {
        result: 'CAPTURED',
        responsecode: '0',
        trackid: new URL(captured).searchParams.get('trackid'),
        transactionid,
        responsedescription: 'The payment was captured.',
      };
      assert.deepEqual(JSON.parse(run.stdout), {
        fromGet: signed,
        fromUrl: signed,
        queryOnly: true,
        otherOnly: 'no signature matched',
        forgedCapture: 'no signature matched',
        failedVerifies: null,
        anHourLater: 'timestamp too old',
        unsigned: 'missing ts parameter',
        malformedSecret: 'malformed secret: expected whsec_<base64>',
      });
    },
  );
});
