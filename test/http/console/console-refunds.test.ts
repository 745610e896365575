// Refunds in the console over HTTP on both stores (docs/console.md "Pages", "CSV export"): a
// refunded payment says so beside its state in the list and its header, its timeline lists each
// refund, the refund form has a confirmation step that shows the amount, and a refund's postings
// lead to their payment, on the balances page and in the CSV export with the refund and its reason.
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
import { ConsoleClient, confirmationFields, consoleOf } from '../../support/console-client.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`console refunds (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;
    let merchant: ConsoleClient;

    async function paid(amount: string): Promise<{ id: string; trackid: string }> {
      const trackid = `r-${Math.random().toString(36).slice(2, 10)}`;
      const r = await post(gw, '/transaction/s2s', initiationBody(shop, { trackid, bill_amount: amount }));
      await gw.services.complete.execute(r.body.transactionid, 'sandbox', { override: 'success' });
      return { id: r.body.transactionid as string, trackid };
    }

    /** The refund form of the payment's page, as a person fills it in. */
    async function refundForm(id: string, amount: string, reason: string): Promise<Record<string, string>> {
      const page = await merchant.get(`/console/payments/${id}?lang=en`);
      const key = /name="refund_key" value="([^"]+)"/.exec(page.body)![1]!;
      return { csrf: merchant.csrf(), refund_key: key, amount, reason };
    }

    before(async () => {
      gw = await startTestGateway(dialect);
      shop = await addMerchant(gw, { id: 'shop-r', feeRate: '0.0175' });
      // Keep the refunds covered: the shop's balance comes from its own payments.
      const password = (await consoleOf(gw).accounts.issueMerchantPassword('shop-r')).password;
      merchant = new ConsoleClient(gw.app, { 'accept-language': 'en' });
      assert.equal((await merchant.login('merchant', 'shop-r', password)).status, 303);
    });
    after(() => gw?.close());

    test('a first post shows the amount to confirm and refunds nothing; only the confirmation refunds', async () => {
      const { id, trackid } = await paid('1000.00');
      const fields = await refundForm(id, '250.5', 'one bag arrived damaged');
      const confirm = await merchant.post(`/console/payments/${id}/refund`, fields);
      assert.equal(confirm.status, 200);
      assert.match(confirm.body, /<h1>Confirm the refund<\/h1>/);
      assert.match(confirm.body, /<dt>Amount to refund<\/dt><dd><strong class="amount">฿250\.50<\/strong><\/dd>/);
      assert.match(confirm.body, /<dt>Still refundable after it<\/dt><dd>฿749\.50<\/dd>/);
      assert.ok(confirm.body.includes(trackid) && confirm.body.includes('one bag arrived damaged'));
      assert.match(confirm.body, /<button type="submit">Refund ฿250\.50<\/button>/);
      assert.equal((await gw.services.refunds.ofTransaction(id)).length, 0, 'nothing refunded yet');

      const confirmed = confirmationFields(confirm.body);
      // The confirmation of 250.50 does not confirm another amount: that is shown for confirmation again.
      const altered = await merchant.post(`/console/payments/${id}/refund`, { ...confirmed, amount: '900.00' });
      assert.equal(altered.status, 200);
      assert.match(altered.body, /<strong class="amount">฿900\.00<\/strong>/);
      const forged = await merchant.post(`/console/payments/${id}/refund`, { ...confirmed, confirm: 'x'.repeat(43) });
      assert.equal(forged.status, 200, 'a wrong token is a confirmation page again');
      assert.equal((await gw.services.refunds.ofTransaction(id)).length, 0);

      const done = await merchant.post(`/console/payments/${id}/refund`, confirmed);
      assert.equal(done.status, 303);
      assert.match(done.location!, /done=refunded&refund=rfd_/);
      const twice = await merchant.post(`/console/payments/${id}/refund`, confirmed);
      assert.equal(twice.location, done.location, 'the confirmation posted twice is one refund');
      const refunds = await gw.services.refunds.ofTransaction(id);
      assert.deepEqual(
        refunds.map((r) => [r.amountMinor, r.reason]),
        [[2_505_000n, 'one bag arrived damaged']],
      );
    });

    test('list and header say Refunded or Partially refunded beside Success; the timeline lists refunds', async () => {
      const partial = await paid('500.00');
      const full = await paid('300.00');
      const untouched = await paid('200.00');
      const p = await merchant.refund(partial.id, await refundForm(partial.id, '100.00', 'late delivery'));
      assert.equal(p.done.status, 303);
      assert.equal(
        (await merchant.refund(full.id, await refundForm(full.id, '100.00', 'first half'))).done.status,
        303,
      );
      assert.equal((await merchant.refund(full.id, await refundForm(full.id, '200.00', 'the rest'))).done.status, 303);

      const list = await merchant.get('/console/payments?lang=en');
      const rowOf = (trackid: string) => list.body.split('<tr>').find((r) => r.includes(`>${trackid}</a>`)) ?? '';
      assert.match(rowOf(full.trackid), /Success<\/span> <span class="pill s-refunded">Refunded<\/span>/);
      assert.match(
        rowOf(partial.trackid),
        /Success<\/span> <span class="pill s-partially-refunded">Partially refunded</,
      );
      assert.ok(rowOf(untouched.trackid).includes('Success') && !rowOf(untouched.trackid).includes('refunded'));

      const detail = await merchant.get(`/console/payments/${full.id}?lang=en`);
      assert.match(
        detail.body,
        new RegExp(
          '<h1>Payment <span class="mono">[^<]+</span> <span class="pills">' +
            '<span class="pill s-SUCCESS">Success</span> <span class="pill s-refunded">Refunded</span></span></h1>',
        ),
      );
      const timeline = detail.body.slice(
        detail.body.indexOf('<h2>Timeline'),
        detail.body.indexOf('</section>', detail.body.indexOf('<h2>Timeline')),
      );
      const refundRows = [
        ...timeline.matchAll(
          new RegExp(
            // Cells may carry their column's label (http/console/table-cards.ts).
            '<tr><td[^>]*>[^<]+UTC\\+7</td><td[^>]*><a href="#refunds">Refund (rfd_[^<]+)</a> · ([^<]+)</td>' +
              '<td[^>]*><span class="pill s-([a-z-]+)">',
            'g',
          ),
        ),
      ];
      assert.deepEqual(
        refundRows.map((m) => [m[2], m[3]]),
        [
          ['฿100.00 · first half', 'partially-refunded'],
          ['฿200.00 · the rest', 'refunded'],
        ],
        'each refund in time order, after the payment succeeded',
      );
      assert.ok(timeline.indexOf('Success') < timeline.indexOf('Refund rfd_'));
    });

    test("a refund's postings lead to their payment: balances page, CSV with the refund and its reason", async () => {
      const { id, trackid } = await paid('800.00');
      const { done } = await merchant.refund(id, await refundForm(id, '80.00', 'returned, "unopened"'));
      const refundId = /refund=(rfd_[A-Za-z0-9_-]+)/.exec(done.location!)![1]!;

      const page = await merchant.get('/console/balances?lang=en');
      const row = page.body.split('<tr>').find((r) => r.includes(`refund ${refundId}`)) ?? '';
      assert.ok(row.includes(`<a href="/console/payments/${id}#refunds">${id}</a>`), row);
      assert.ok(row.includes('returned, &quot;unopened&quot;'), 'the refund reason beside the entry reason');

      const csv = await merchant.get('/console/balances/postings.csv');
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(
        lines[0],
        'account_seq,created_at,entry_id,kind,transactionid,reason,currency,amount,balance_after,' +
          'refundid,refund_reason',
      );
      const refundLine = lines.find((l) => l.includes(`,refund,${id},`))!;
      assert.match(
        refundLine,
        new RegExp(
          `,refund,${id},refund ${refundId} of payment ${trackid},THB,-80\\.0000,[0-9.]+,` +
            `${refundId},"returned, ""unopened"""$`,
        ),
      );
      const paymentLine = lines.find((l) => l.includes(`,payment,${id},`))!;
      assert.match(paymentLine, /,,$/, 'a payment posting has no refund');
    });
  });
}
