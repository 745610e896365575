// The console's "Record a bank-transfer refund" form over HTTP on both stores (docs/console.md
// "Pages"): shown only where something is left to refund, with wording and a required box saying it
// records money already sent and moves none; a required radio saying who sent the transfer,
// starting at what the user is (a merchant: the merchant; an operator: the gateway), either one
// choosable, deciding the merchant's balance (the gateway's: payout − amount; the merchant's: no
// change); CSRF-checked like every form; a merchant records for its own payments only, an operator
// for any; a refusal shows the page again with the reason in the form and the named field marked,
// and writes nothing; the refunds table says how each refund was paid and by whom; each recording
// is audited with who did it and who paid.
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
import { ConsoleClient, consoleOf, OPERATOR_PASSWORD, type Page } from '../../support/console-client.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`console: a refund paid by bank transfer (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let shop: MerchantCredentials;
    let other: MerchantCredentials;
    let merchant: ConsoleClient;
    let operator: ConsoleClient;

    async function payment(creds: MerchantCredentials, amount: string, outcome?: 'success'): Promise<string> {
      const trackid = `t-${Math.random().toString(36).slice(2, 10)}`;
      const r = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid, bill_amount: amount }));
      if (outcome) await gw.services.complete.execute(r.body.transactionid, 'sandbox', { override: outcome });
      return r.body.transactionid as string;
    }

    /** The form as a person fills it in, after opening the payment's page: the radio as the page checked it. */
    async function fill(client: ConsoleClient, id: string, fields: Record<string, string>) {
      const page = await client.get(`/console/payments/${id}?lang=en`);
      const checked = /name="paid_by" value="(\w+)" required checked>/.exec(page.body)?.[1] ?? '';
      return { csrf: client.csrf(), already_sent: 'yes', reason: '', paid_by: checked, ...fields };
    }
    const balanceOf = (merchantId: string) =>
      gw.services.ledger.balance({ kind: 'merchant_payout', merchantId, currency: 'THB' });

    const record = (client: ConsoleClient, id: string, fields: Record<string, string>) =>
      client.post(`/console/payments/${id}/record-refund`, fields);

    /** The transfer form's part of a page: its notice and its fields. */
    const formOf = (page: Page) => {
      const start = page.body.indexOf('<h3 id="record-transfer"');
      assert.ok(start >= 0, 'the page has the bank-transfer form');
      return page.body
        .slice(start, page.body.indexOf('</section>', start))
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
    };

    const audited = async (id: string) =>
      (await gw.services.store.consoleAccounts.listAudit({ limit: 100, action: 'payment.refund_recorded' })).filter(
        (a) => a.target === id,
      );

    before(async () => {
      gw = await startTestGateway(dialect);
      shop = await addMerchant(gw, { id: 'shop-t' });
      other = await addMerchant(gw, { id: 'shop-u' });
      const c = consoleOf(gw);
      const password = (await c.accounts.issueMerchantPassword('shop-t')).password;
      merchant = new ConsoleClient(gw.app, { 'accept-language': 'en' });
      assert.equal((await merchant.login('merchant', 'shop-t', password)).status, 303);
      await c.accounts.createOperator({ username: 'op', password: OPERATOR_PASSWORD, totp: false });
      operator = new ConsoleClient(gw.app, { 'accept-language': 'en' });
      assert.equal((await operator.login('operator', 'op', OPERATOR_PASSWORD)).status, 303);
    });
    after(() => gw?.close());

    test('the form says it moves no money, needs the box, and records; the table says how it was paid', async () => {
      const id = await payment(shop, '1000.00', 'success');
      const page = await merchant.get(`/console/payments/${id}?lang=en`);
      const form = formOf(page);
      assert.match(form, /<h3 id="record-transfer">Record a bank-transfer refund<\/h3>/);
      assert.match(form, /Only for money ALREADY sent back to the payer by bank transfer/);
      assert.match(form, /Recording moves no money/);
      assert.match(
        form,
        /<input type="checkbox" name="already_sent" value="yes" required> I have already sent this money/,
      );
      assert.match(form, /<button type="submit">Record the refund \(moves no money\)<\/button>/);
      assert.match(form, /name="transfer_reference" required maxlength="64"/);
      // Who sent it: required, both choices, a merchant's page starting at the merchant.
      assert.match(form, /<legend>Who sent the transfer<\/legend>/);
      assert.match(
        form,
        /<input type="radio" name="paid_by" value="gateway" required> The gateway's operator, from the merchant's/,
      );
      assert.match(
        form,
        /<input type="radio" name="paid_by" value="merchant" required checked> The merchant, from its own bank account/,
      );

      const unticked = await record(merchant, id, {
        ...(await fill(merchant, id, { amount: '250.00', transfer_reference: 'FT1' })),
        already_sent: '',
      });
      assert.equal(unticked.status, 400);
      assert.match(
        formOf(unticked),
        /<p class="notice error" role="alert">The field 'already_sent' is invalid: tick it/,
      );
      assert.match(formOf(unticked), /name="already_sent" value="yes" required aria-invalid="true">/);
      assert.match(
        formOf(unticked),
        /name="amount" inputmode="decimal" required maxlength="32" value="250.00">/,
        'what was typed is kept',
      );
      assert.equal((await gw.services.refunds.ofTransaction(id)).length, 0);

      const balanceBefore = await balanceOf('shop-t');
      const done = await record(
        merchant,
        id,
        await fill(merchant, id, { amount: '250.00', transfer_reference: 'ft-2601-a', reason: 'late parcel' }),
      );
      assert.equal(done.status, 303, done.body.slice(0, 300));
      assert.match(done.location!, /\?done=recorded&refund=rfd_[A-Za-z0-9_-]+#refunds$/);
      const shown = await merchant.get(done.location!.replace('#refunds', '') + '&lang=en');
      assert.match(shown.body, /<p class="notice" role="status">Bank-transfer refund recorded \(rfd_/);
      assert.match(shown.body, /<th>Paid by<\/th>/);
      assert.match(shown.body, /<td[^>]*>Bank transfer by the merchant, reference FT-2601-A<\/td>/);
      const [refund] = await gw.services.refunds.ofTransaction(id);
      assert.deepEqual(
        [refund?.amountMinor, refund?.processor, refund?.reason, refund?.transferPaidBy],
        [2_500_000n, 'bank_transfer', 'late parcel', 'merchant'],
      );
      assert.equal(await balanceOf('shop-t'), balanceBefore, "the merchant's own transfer: its balance stays");
      const [entry] = await audited(id);
      assert.deepEqual(
        [entry?.actorRole, entry?.actorId, entry?.details.transfer_reference, entry?.details.paid_by],
        ['merchant', 'shop-t', 'FT-2601-A', 'merchant'],
      );

      // A merchant may say the gateway's operator sent it (at its request): off its balance.
      const byGateway = await record(
        merchant,
        id,
        await fill(merchant, id, { amount: '100.00', transfer_reference: 'FT-2601-B', paid_by: 'gateway' }),
      );
      assert.equal(byGateway.status, 303, byGateway.body.slice(0, 300));
      assert.equal(await balanceOf('shop-t'), balanceBefore - 1_000_000n);
      const table = await merchant.get(`/console/payments/${id}?lang=en`);
      assert.match(table.body, /<td[^>]*>Bank transfer by the gateway, reference FT-2601-B<\/td>/);

      // The same transfer posted again (a double submit): the first refund, nothing new.
      const twice = await record(
        merchant,
        id,
        await fill(merchant, id, { amount: '250', transfer_reference: 'FT-2601-A' }),
      );
      assert.equal(twice.status, 303);
      assert.match(twice.location!, new RegExp(`done=recorded-before&refund=${refund!.id}#refunds`));
      assert.equal((await gw.services.refunds.ofTransaction(id)).length, 2);
      assert.equal((await audited(id)).length, 2);
    });

    test('refusals come back in the form, naming the field; nothing is written', async () => {
      const id = await payment(shop, '500.00', 'success');
      await record(merchant, id, await fill(merchant, id, { amount: '100.00', transfer_reference: 'FT-FIRST' }));
      const cases: Array<[Record<string, string>, number, string, RegExp]> = [
        [
          { amount: '100.00', transfer_reference: 'FT 2' },
          400,
          'transfer_reference',
          /The field 'transfer_reference' is invalid/,
        ],
        [
          { amount: '100.00', transfer_reference: '' },
          400,
          'transfer_reference',
          /The field 'transfer_reference' is required/,
        ],
        [
          { amount: '1.001', transfer_reference: 'FT-3' },
          400,
          'amount',
          /The field 'amount' is invalid: THB amounts have at most 2/,
        ],
        [{ amount: '400.01', transfer_reference: 'FT-4' }, 409, 'amount', /more than the 400\.00 THB still refundable/],
        [
          { amount: '50.00', transfer_reference: 'FT-FIRST' },
          409,
          'transfer_reference',
          /FT-FIRST was already recorded for this payment, as a refund of 100\.00 THB/,
        ],
        [
          { amount: '50.00', transfer_reference: 'FT-5', paid_by: '' },
          400,
          'paid_by',
          /The field 'paid_by' is required/,
        ],
        [
          { amount: '50.00', transfer_reference: 'FT-6', paid_by: 'bank' },
          400,
          'paid_by',
          /The field 'paid_by' is invalid: it must be 'gateway'/,
        ],
      ];
      for (const [fields, status, field, message] of cases) {
        const answer = await record(merchant, id, await fill(merchant, id, fields));
        assert.equal(answer.status, status, JSON.stringify(fields));
        const form = formOf(answer);
        assert.match(form, new RegExp(`<p class="notice error" role="alert">[^<]*${message.source}`));
        assert.match(form, new RegExp(`name="${field}"[^>]*aria-invalid="true"`), `${field} is marked`);
        assert.ok(form.includes(`value="${fields.transfer_reference}"`), 'the reference typed is kept');
      }
      assert.equal((await gw.services.refunds.ofTransaction(id)).length, 1);
      assert.equal((await audited(id)).length, 1);
    });

    test("CSRF and scope: forged 403, another merchant's payment 404, an operator records for any", async () => {
      const id = await payment(shop, '300.00', 'success');
      const forged = await record(merchant, id, {
        ...(await fill(merchant, id, { amount: '10', transfer_reference: 'FT-F' })),
        csrf: 'x'.repeat(43),
      });
      assert.equal(forged.status, 403);
      const theirs = await payment(other, '300.00', 'success');
      const notMine = await record(
        merchant,
        theirs,
        await fill(merchant, id, { amount: '10', transfer_reference: 'FT-T' }),
      );
      assert.equal(notMine.status, 404);
      assert.equal(
        (await gw.services.refunds.ofTransaction(id)).length + (await gw.services.refunds.ofTransaction(theirs)).length,
        0,
      );

      // An operator's page starts at the gateway (the operator sent it from the merchant's funds).
      const operatorPage = formOf(await operator.get(`/console/payments/${theirs}?lang=en`));
      assert.match(operatorPage, /name="paid_by" value="gateway" required checked>/);
      assert.match(operatorPage, /name="paid_by" value="merchant" required>/);
      const before = await balanceOf('shop-u');
      const byOperator = await record(
        operator,
        theirs,
        await fill(operator, theirs, { amount: '10', transfer_reference: 'FT-OP' }),
      );
      assert.equal(byOperator.status, 303);
      assert.equal(await balanceOf('shop-u'), before - 100_000n);
      const [entry] = await audited(theirs);
      assert.deepEqual(
        [entry?.actorRole, entry?.details.merchantid, entry?.details.paid_by],
        ['operator', 'shop-u', 'gateway'],
      );
    });

    test('no form where nothing is left to refund', async () => {
      const open = await payment(shop, '200.00');
      assert.ok(!(await merchant.get(`/console/payments/${open}?lang=en`)).body.includes('record-transfer'));
      const id = await payment(shop, '200.00', 'success');
      await record(merchant, id, await fill(merchant, id, { amount: '200', transfer_reference: 'FT-ALL' }));
      const page = await merchant.get(`/console/payments/${id}?lang=en`);
      assert.ok(!page.body.includes('record-transfer'));
      assert.match(page.body, /Bank transfer by the merchant, reference FT-ALL/);
    });
  });
}
