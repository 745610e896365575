// The hosted page behind keyed redirect ids (src/domain/keyed-ids.ts; docs/hosted-page.md
// "The page's ID"): a new payment's page opens by the transaction id its ID carries once the MAC
// verifies; a forged or truncated ID, another payment's MAC on this id, or the payment's token
// presented as its ID get exactly the 404 page an unknown ID gets; a payment whose ID is of the
// form issued before migration 019 still opens.
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
import { startPayment } from '../../support/lifecycle.ts';
import { insertLegacyCopy } from '../../support/legacy-identifiers.ts';
import { keyedId, transactionIdOf } from '../../../src/domain/keyed-ids.ts';

/** Status, type and body of an answer, its per-response nonce blanked (the rest must be identical). */
function comparable(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const nonce = /'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))?.[1];
  return {
    status: res.statusCode,
    type: res.headers['content-type'],
    body: nonce ? res.body.replaceAll(nonce, 'NONCE') : res.body,
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`keyed redirect ids [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect, { GATEWAY_MODE: 'sandbox' });
      creds = await addMerchant(gw);
    });
    after(async () => gw?.close());

    const get = (url: string) => gw.app.inject({ method: 'GET', url });
    const page = (id: string) => get(`/transaction/Redirect?ID=${encodeURIComponent(id)}&lang=en`);

    test('initiation returns a token and a redirectUrl whose ID both carry the transaction id', async () => {
      const res = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: `keyed-${process.pid}` }));
      assert.equal(res.status, 200, res.raw);
      const { token, redirectUrl, transactionid } = res.body;
      const id = new URL(redirectUrl).searchParams.get('ID')!;
      assert.match(token, /^[A-Za-z0-9_-]{44}$/);
      assert.match(id, /^[A-Za-z0-9_-]{44}$/);
      assert.equal(transactionIdOf(gw.config.secretKey!, 'token', token), transactionid);
      assert.equal(transactionIdOf(gw.config.secretKey!, 'redirect-id', id), transactionid);
      const stored = await gw.testStore.db
        .selectFrom('transactions')
        .select(['token', 'redirect_id'])
        .where('id', '=', transactionid)
        .executeTakeFirstOrThrow();
      assert.deepEqual({ ...stored }, { token, redirect_id: id });
      const opened = await page(id);
      assert.equal(opened.statusCode, 200);
      assert.match(opened.body, /฿9,999\.99/);
    });

    test('forged, truncated, borrowed MAC and a token as ID: the same 404 page as an unknown ID', async () => {
      const mine = await startPayment(gw, creds);
      const other = await startPayment(gw, creds);
      const token = (
        await gw.testStore.db
          .selectFrom('transactions')
          .select('token')
          .where('id', '=', mine.transactionid)
          .executeTakeFirstOrThrow()
      ).token;
      const bytes = Buffer.from(mine.redirectId, 'base64url');
      const forged = Buffer.from(bytes);
      forged[forged.length - 1]! ^= 0x01;
      const borrowed = Buffer.concat([bytes.subarray(0, 17), Buffer.from(other.redirectId, 'base64url').subarray(17)]);
      const unknown = await page('A'.repeat(44));
      assert.equal(unknown.statusCode, 404);
      const presented: Record<string, string> = {
        'forged MAC': forged.toString('base64url'),
        truncated: mine.redirectId.slice(0, 43),
        'truncated to the earlier length': mine.redirectId.slice(0, 32),
        "another payment's MAC on this id": borrowed.toString('base64url'),
        'the payment’s token': token,
        'an unknown ID of the earlier form': 'B'.repeat(32),
      };
      for (const [what, id] of Object.entries(presented)) {
        assert.deepEqual(comparable(await page(id)), comparable(unknown), what);
        const png = await get(`/transaction/Redirect/qr.png?ID=${encodeURIComponent(id)}&lang=en`);
        assert.equal(png.statusCode, 404, `${what}: Save QR`);
      }
      // The genuine IDs still open (nothing above was a lucky hit on them).
      assert.equal((await page(mine.redirectId)).statusCode, 200);
      assert.equal((await page(other.redirectId)).statusCode, 200);
    });

    test('a payment whose ID is of the form issued before migration 019 still opens, and only by that ID', async () => {
      const template = await startPayment(gw, creds, { bill_amount: '142.25' });
      const legacy = await insertLegacyCopy(gw.testStore.db, template.transactionid);
      assert.equal(legacy.redirectId.length, 32);
      const opened = await page(legacy.redirectId);
      assert.equal(opened.statusCode, 200);
      assert.match(opened.body, /฿142\.25/);
      assert.equal((await get(`/transaction/Redirect/qr.png?ID=${legacy.redirectId}`)).statusCode, 200);
      const polled = await get(`/transaction/Redirect/status?ID=${legacy.redirectId}`);
      assert.equal(polled.statusCode, 200);
      // Its token is not a page ID, and a keyed ID minted for its transaction id finds no row
      // holding that ID (the stored redirect id must equal the presented one).
      assert.equal((await page(legacy.token.slice(0, 32))).statusCode, 404);
      assert.equal((await page(keyedId(gw.config.secretKey!, 'redirect-id', legacy.id))).statusCode, 404);
    });
  });
}
