// The console's view of live payments on both stores, with rows written through the store's ports
// as the live use cases write them: a payment's processor attempts, the processor's notifications
// and its attention items on the payment page (operators only, escaped, the body truncated; nothing
// for a payment without them), and the Needs attention page — open items first, newest first, a
// resolve form with a required note (CSRF, audited as attention.resolve, a second resolve changes
// nothing), the open count in the operators' menu, and a 404 for merchants.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { startPayment } from '../../support/lifecycle.ts';
import { ConsoleClient, consoleOf, OPERATOR_PASSWORD } from '../../support/console-client.ts';
import { insertAttempt, raiseAttention, recordNotification } from '../../support/processor-rows.ts';

const SCRIPT = '<script>alert(1)</script>';

for (const { dialect, skip } of await testDialects()) {
  describe(`console: live payments and the Needs attention page (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let shopA: MerchantCredentials;
    let operator: ConsoleClient;
    let merchantA: ConsoleClient;

    const audits = async (action: string) =>
      (await gw.services.store.consoleAccounts.listAudit({ limit: 100, action })).length;

    before(async () => {
      gw = await startTestGateway(dialect);
      const c = consoleOf(gw);
      await c.accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      shopA = await addMerchant(gw, { id: 'shop-a' });
      const consolePassword = (await c.accounts.issueMerchantPassword('shop-a')).password;
      operator = new ConsoleClient(gw.app);
      assert.equal((await operator.login('operator', 'op', OPERATOR_PASSWORD)).status, 303);
      merchantA = new ConsoleClient(gw.app);
      assert.equal((await merchantA.login('merchant', 'shop-a', consolePassword)).status, 303);
    });
    after(() => gw?.close());

    test('a payment without processor rows shows no processor or attention section', async () => {
      const { transactionid } = await startPayment(gw, shopA);
      for (const client of [operator, merchantA]) {
        const page = await client.get(`/console/payments/${transactionid}`);
        assert.equal(page.status, 200);
        assert.ok(!page.body.includes('id="processor"') && !page.body.includes('id="attention"'), page.body);
      }
    });

    test(
      "the payment page shows the processor's attempts, its notifications (escaped, the body " +
        'truncated) and the attention items, to operators only',
      async () => {
        const { transactionid } = await startPayment(gw, shopA, { bill_amount: '100.00' });
        const store = gw.services.store;
        const qr = await insertAttempt(store, transactionid, {
          state: 'paid',
          processorTxnNo: 'KB-TXN-778899',
          paidAmountMinor: 1_000_000n,
          paidAt: Date.now(),
          checks: 2,
        });
        const second = await insertAttempt(store, transactionid, {
          attempt: 2,
          state: 'failed',
          lastError: `HTTP 500 ${SCRIPT}`,
        });
        const longBody = `{"note":"${SCRIPT}","pad":"${'x'.repeat(2000)}","tail":"END-OF-BODY"}`;
        await recordNotification(store, transactionid, {
          reference: qr.reference,
          sourceIp: '203.0.113.77',
          body: longBody,
          outcome: 'checked',
        });
        const item = await raiseAttention(store, transactionid, {
          kind: 'amount_mismatch',
          detail: `The processor reports 1000000 (1/10,000) THB paid ${SCRIPT}`,
          reference: qr.reference,
        });

        const page = await operator.get(`/console/payments/${transactionid}?lang=en`);
        assert.equal(page.status, 200);
        assert.ok(!page.body.includes(SCRIPT), 'nothing from the processor is markup');
        assert.ok(!/<script/i.test(page.body));
        assert.match(page.body, /id="processor"/);
        for (const shown of [
          qr.reference,
          second.reference,
          'KB-TXN-778899',
          '100.0000 THB',
          '203.0.113.77',
          'checked',
        ])
          assert.ok(page.body.includes(shown), shown);
        assert.ok(page.body.includes('HTTP 500 &lt;script&gt;alert(1)&lt;/script&gt;'), 'the last error, escaped');
        assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the body, escaped');
        assert.ok(!page.body.includes('END-OF-BODY'), 'the body is truncated');
        assert.match(page.body, /<td\b[^>]*>paid<\/td>/);
        assert.match(page.body, /<td\b[^>]*>refused<\/td>/, 'a refused create');
        assert.match(page.body, /id="attention"/);
        assert.ok(page.body.includes('amount does not match'));
        assert.ok(page.body.includes(`The processor reports 1000000 (1/10,000) THB paid &lt;script&gt;`));
        assert.ok(page.body.includes('href="/console/attention"'), 'leads to where it is resolved');

        const th = await operator.get(`/console/payments/${transactionid}?lang=th`);
        assert.ok(th.body.includes('ที่ผู้ให้บริการชำระเงิน') && th.body.includes('ยอดเงินไม่ตรงกัน'));
        await operator.get(`/console/payments/${transactionid}?lang=en`);

        const mine = await merchantA.get(`/console/payments/${transactionid}`);
        assert.equal(mine.status, 200);
        for (const hidden of [qr.reference, 'id="processor"', 'id="attention"', item.id, '203.0.113.77'])
          assert.ok(!mine.body.includes(hidden), `a merchant does not see ${hidden}`);
        await gw.services.store.attention.resolve(item.id, 'test', 'cleaned up', Date.now());
      },
    );

    test(
      'Needs attention: open items newest first with their payment; resolve needs a note and the ' +
        'form token, is audited, moves the menu count at once; a second resolve changes nothing',
      async () => {
        const store = gw.services.store;
        const older = await startPayment(gw, shopA);
        const newer = await startPayment(gw, shopA);
        const first = await raiseAttention(store, older.transactionid, {
          createdAt: Date.now() - 60_000,
          reference: 'KBREF-OLDER',
        });
        const second = await raiseAttention(store, newer.transactionid, {
          detail: `Paid after the end ${SCRIPT}`,
          amountMinor: 1_234_500n,
          reference: 'KBREF-NEWER',
        });
        await gw.services.openAttention.refresh();
        const open = gw.services.openAttention.value()!;
        assert.ok(open >= 2);

        const page = await operator.get('/console/attention?lang=en');
        assert.equal(page.status, 200);
        assert.ok(!page.body.includes(SCRIPT));
        assert.ok(page.body.includes('Paid after the end &lt;script&gt;'));
        assert.ok(page.body.indexOf(second.id) < page.body.indexOf(first.id), 'newest first');
        assert.ok(page.body.includes(`href="/console/payments/${newer.transactionid}"`));
        assert.ok(page.body.includes(newer.trackid) && page.body.includes('KBREF-NEWER'));
        assert.ok(page.body.includes('123.4500 THB'), 'the amount reported, exact');
        assert.ok(page.body.includes('paid after the payment ended'));
        assert.ok(page.body.includes(`action="/console/attention/${second.id}/resolve"`));
        assert.ok(
          page.body.includes(`>Needs attention <span class="pill s-FAILED">${open}</span></a>`),
          'the menu shows the open count',
        );

        const audited = await audits('attention.resolve');
        const forged = await operator.post(`/console/attention/${second.id}/resolve`, { note: 'done', csrf: 'forged' });
        assert.equal(forged.status, 403);
        await operator.get('/console/attention?lang=en');
        const noNote = await operator.post(`/console/attention/${second.id}/resolve`, {
          csrf: operator.csrf(),
          note: '   ',
        });
        assert.equal(noNote.status, 400);
        assert.match(noNote.body, /The field &#39;note&#39; is required/);
        assert.equal((await store.attention.find(second.id))!.resolvedAt, null, 'nothing changed');
        assert.equal(await audits('attention.resolve'), audited);

        const done = await operator.post(`/console/attention/${second.id}/resolve`, {
          csrf: operator.csrf(),
          note: `Refunded by bank transfer ${SCRIPT}`,
        });
        assert.equal(done.status, 303);
        assert.equal(done.location, `/console/attention?done=resolved&item=${second.id}`);
        const resolved = (await store.attention.find(second.id))!;
        assert.equal(resolved.resolvedBy, 'operator:op');
        assert.equal(resolved.resolution, `Refunded by bank transfer ${SCRIPT}`);
        assert.equal(gw.services.openAttention.value(), open - 1, 'the count moved without a store read');
        const [entry] = await store.consoleAccounts.listAudit({ limit: 1, action: 'attention.resolve' });
        assert.equal(entry?.actorRole, 'operator');
        assert.equal(entry?.target, second.id);
        assert.equal(entry?.remoteAddr, '127.0.0.1');
        assert.deepEqual(entry?.details, {
          transactionid: newer.transactionid,
          kind: 'paid_after_final',
          reference: 'KBREF-NEWER',
          note: `Refunded by bank transfer ${SCRIPT}`,
        });

        const after = await operator.get(done.location!);
        assert.ok(after.body.includes(`Marked ${second.id} resolved.`));
        assert.ok(!after.body.includes(SCRIPT));
        assert.ok(after.body.includes('Refunded by bank transfer &lt;script&gt;'), 'the note, under resolved');
        assert.ok(after.body.includes('operator:op'));
        assert.ok(!after.body.includes(`action="/console/attention/${second.id}/resolve"`), 'no form any more');
        assert.ok(after.body.includes(`action="/console/attention/${first.id}/resolve"`));

        const again = await operator.post(`/console/attention/${second.id}/resolve`, {
          csrf: operator.csrf(),
          note: 'again',
        });
        assert.equal(again.status, 409);
        assert.ok(again.body.includes('This item was resolved already; nothing changed.'));
        assert.equal((await store.attention.find(second.id))!.resolution, `Refunded by bank transfer ${SCRIPT}`);
        assert.equal(await audits('attention.resolve'), audited + 1, 'the second resolve is not audited');
        assert.equal(gw.services.openAttention.value(), open - 1);

        await operator.get('/console/attention');
        const unknown = await operator.post('/console/attention/att_nothing/resolve', {
          csrf: operator.csrf(),
          note: 'x',
        });
        assert.equal(unknown.status, 404);
      },
    );

    test('a merchant gets the 404 of an unknown page for Needs attention, and no menu link', async () => {
      const { transactionid } = await startPayment(gw, shopA);
      const item = await raiseAttention(gw.services.store, transactionid);
      const unknownPage = await merchantA.get('/console/no-such-page');
      const page = await merchantA.get('/console/attention');
      assert.equal(page.status, 404);
      assert.equal(
        page.body.replace(/nonce-[^']+'|nonce="[^"]+"|value="[^"]+"/g, ''),
        unknownPage.body.replace(/nonce-[^']+'|nonce="[^"]+"|value="[^"]+"/g, ''),
        'the same page as an unknown one',
      );
      assert.ok(!page.body.includes('/console/attention'));
      assert.ok(!(await merchantA.get('/console/payments')).body.includes('/console/attention'));
      const posted = await merchantA.post(`/console/attention/${item.id}/resolve`, {
        csrf: merchantA.csrf(),
        note: 'merchant tries',
      });
      assert.equal(posted.status, 404);
      assert.equal((await gw.services.store.attention.find(item.id))!.resolvedAt, null);
    });
  });
}
