// `npm run gateway -- refund list|show|record` on both stores, through runCli with a capturing io,
// over refunds made through the real API, and refunds paid by bank transfer recorded with
// `refund record` (app/record-transfer-refund.ts): exit 0 on a record or a repeat, 1 on a refusal
// (named), 2 on a usage mistake (a missing or unknown --paid-by among them); --paid-by gateway
// takes the amount from the merchant's balance, --paid-by merchant leaves it as it was.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  TEST_SECRET_KEY_HEX,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { startPayment } from '../support/lifecycle.ts';
import { runCli } from '../../src/cli/run-cli.ts';

type Run = { code: number; out: string; err: string };

for (const { dialect, skip } of await testDialects()) {
  describe(`refund CLI [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let other: MerchantCredentials;
    let txid: string;
    const refundIds: string[] = [];
    const cli = async (...argv: string[]): Promise<Run> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        { out: (t) => out.push(t), err: (t) => err.push(t) },
        { DATABASE_URL: gw.testStore.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
      other = await addMerchant(gw);
      for (const [c, amount, refunds] of [
        [creds, '100', ['10', '15.5']],
        [other, '200', ['200']],
      ] as const) {
        const p = await startPayment(gw, c, { bill_amount: amount });
        await post(gw, '/sandbox/transaction/complete', {
          merchantid: c.merchantid,
          password: c.password,
          transactionid: p.transactionid,
        });
        if (c === creds) txid = p.transactionid;
        for (const amount of refunds) {
          gw.clock.now += 1000; // distinct created_at, so "newest first" is well defined
          const res = await post(gw, '/transaction/refund', {
            merchantid: c.merchantid,
            password: c.password,
            transactionid: p.transactionid,
            bill_amount: amount,
            bill_currencycode: 'THB',
            reason: `r ${amount}`,
          });
          assert.equal(res.status, 200, res.raw);
          refundIds.push(res.body.refundid);
        }
      }
    });
    after(() => gw?.close());

    test('refund list --json: one object, newest first, filters by merchant and transaction', async () => {
      const all = await cli('refund', 'list', '--json');
      assert.equal(all.code, 0, all.err);
      const json = JSON.parse(all.out);
      assert.deepEqual(Object.keys(json), ['refunds', 'next_cursor']);
      assert.deepEqual(
        json.refunds.map((r: { refundid: string }) => r.refundid),
        [...refundIds].reverse(),
      );
      const mine = JSON.parse((await cli('refund', 'list', '--merchant', creds.merchantid, '--json')).out);
      assert.deepEqual(
        mine.refunds.map((r: { amount: string }) => r.amount),
        ['15.50', '10.00'],
      );
      assert.deepEqual(
        mine.refunds.map((r: { refunded_after: string }) => r.refunded_after),
        ['25.50', '10.00'],
      );
      const byTx = JSON.parse((await cli('refund', 'list', '--transaction', txid, '--json')).out);
      assert.equal(byTx.refunds.length, 2);
      assert.ok(byTx.refunds.every((r: { transactionid: string }) => r.transactionid === txid));
    });

    test('refund list: a header row, then one row per refund; paging with --limit and --cursor', async () => {
      const human = await cli('refund', 'list', '--limit', '2');
      assert.equal(human.code, 0, human.err);
      const lines = human.out.split('\n');
      assert.match(
        lines[0]!,
        /^REFUNDID\s+MERCHANTID\s+TRANSACTIONID\s+AMOUNT\s+CURRENCY\s+REFUNDED_AFTER\s+CREATED_AT\s+REASON/,
      );
      assert.equal(lines.length, 3);
      const cursor = /--cursor (\S+)/.exec(human.err)?.[1];
      assert.ok(cursor, human.err);
      const rest = JSON.parse((await cli('refund', 'list', '--limit', '2', '--cursor', cursor, '--json')).out);
      assert.deepEqual(
        rest.refunds.map((r: { refundid: string }) => r.refundid),
        [refundIds[0]],
      );
      assert.equal(rest.next_cursor, null);
      const bad = await cli('refund', 'list', '--limit', '0');
      assert.equal(bad.code, 2);
    });

    test('refund show: the refund, its payment and its notification; unknown id → exit 1', async () => {
      const id = refundIds[1]!;
      const json = JSON.parse((await cli('refund', 'show', id, '--json')).out);
      assert.equal(json.refundid, id);
      assert.equal(json.amount, '15.50');
      assert.equal(json.reason, 'r 15.5');
      assert.deepEqual(json.payment, { trackid: json.payment.trackid, amount: '100.00', refunded: '25.50' });
      assert.match(json.notification.event_id, /^evt_/);
      assert.equal(json.notification.status, 'pending', 'no delivery worker runs in this test');
      const human = await cli('refund', 'show', id);
      assert.equal(human.code, 0, human.err);
      assert.match(human.out, new RegExp(`^refund ${id}: 15\\.50 THB on `));
      assert.match(human.out, /captured 100\.00, refunded 25\.50 in total/);
      const missing = await cli('refund', 'show', 'rfd_nope');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /No refund with id 'rfd_nope'/);
    });

    test('refund record: recorded once per transfer reference, audited as cli; refusals exit 1', async () => {
      const balance = () =>
        gw.services.ledger.balance({ kind: 'merchant_payout', merchantId: creds.merchantid, currency: 'THB' });
      const p = await startPayment(gw, creds, { bill_amount: '180' });
      await post(gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: p.transactionid,
      });
      const record = (...more: string[]) =>
        cli('refund', 'record', '--merchant', creds.merchantid, '--transaction', p.transactionid, ...more);

      const start = await balance();
      const done = await record(
        ...['--amount', '30.00', '--reference', 'FT-CLI-1', '--paid-by', 'gateway', '--reason', 'paid back', '--json'],
      );
      assert.equal(done.code, 0, done.err);
      const json = JSON.parse(done.out);
      assert.equal(json.replayed, false);
      assert.deepEqual(
        [json.method, json.processor, json.processor_reference, json.paid_by, json.amount, json.reason],
        ['bank_transfer', 'bank_transfer', 'FT-CLI-1', 'gateway', '30.00', 'paid back'],
      );
      assert.equal(await balance(), start - 30_0000n, "paid by the gateway: off the merchant's balance");
      assert.equal(json.response.refundable_amount, '150.00');
      const audit = await gw.services.store.consoleAccounts.listAudit({ limit: 10, action: 'payment.refund_recorded' });
      const entry = audit.find((a) => a.target === p.transactionid);
      assert.deepEqual(
        [entry?.actorRole, entry?.details.refundid, entry?.details.transfer_reference, entry?.details.paid_by],
        ['cli', json.refundid, 'FT-CLI-1', 'gateway'],
      );

      const again = await record('--amount', '30', '--reference', 'ft-cli-1', '--paid-by', 'gateway');
      assert.equal(again.code, 0, again.err);
      assert.match(again.out, new RegExp(`^Already recorded: transfer FT-CLI-1 is refund ${json.refundid} `));
      assert.match(again.out, /nothing was recorded again/);
      assert.equal((await gw.services.refunds.ofTransaction(p.transactionid)).length, 1);

      const otherAmount = await record('--amount', '40.00', '--reference', 'FT-CLI-1', '--paid-by', 'gateway');
      assert.equal(otherAmount.code, 1);
      assert.match(otherAmount.err, /^Refused: The transfer_reference FT-CLI-1 was already recorded for this payment/);
      const bad = await record('--amount', '10', '--reference', 'FT CLI 2', '--paid-by', 'gateway');
      assert.equal(bad.code, 1);
      assert.match(bad.err, /^Refused: The field 'transfer_reference' is invalid/);
      const over = await record('--amount', '150.01', '--reference', 'FT-CLI-3', '--paid-by', 'merchant');
      assert.equal(over.code, 1);
      assert.match(over.err, /^Refused: The refund of 150\.01 THB is more than the 150\.00 THB still refundable/);
      const unknown = await cli(
        'refund',
        'record',
        '--merchant',
        other.merchantid,
        '--transaction',
        p.transactionid,
        '--amount',
        '1',
        '--reference',
        'FT-X',
        '--paid-by',
        'gateway',
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /No transaction with that transactionid exists for this merchant/);
      const usage = await record('--amount', '10', '--paid-by', 'gateway');
      assert.equal(usage.code, 2);
      assert.match(usage.err, /--reference is required/);
      const noPayer = await record('--amount', '10', '--reference', 'FT-CLI-5');
      assert.equal(noPayer.code, 2);
      assert.match(noPayer.err, /--paid-by is required/);
      const badPayer = await record('--amount', '10', '--reference', 'FT-CLI-5', '--paid-by', 'operator');
      assert.equal(badPayer.code, 2);
      assert.match(badPayer.err, /--paid-by must be 'gateway' .* or 'merchant'/);
      assert.equal((await gw.services.refunds.ofTransaction(p.transactionid)).length, 1, 'no refusal wrote a refund');

      const beforeOwn = await balance();
      const human = await record('--amount', '150', '--reference', 'FT-CLI-4', '--paid-by', 'merchant');
      assert.equal(human.code, 0, human.err);
      assert.match(
        human.out,
        new RegExp(
          String.raw`^Recorded refund rfd_\S+: 150\.00 THB of transaction \S+, paid by bank transfer FT-CLI-4 ` +
            String.raw`by the merchant\. No money moved; the merchant's balance is unchanged`,
        ),
      );
      assert.equal(await balance(), beforeOwn, 'paid by the merchant: the balance stays');
      assert.match(human.out, /Still refundable: 0\.00 THB$/);
      const shown = await cli('refund', 'show', json.refundid);
      assert.match(shown.out, /paid by +bank transfer by the gateway, reference FT-CLI-1/);
      const listed = await cli('refund', 'list', '--transaction', p.transactionid);
      assert.match(listed.out.split('\n')[0]!, /\tREASON\tPAID_BY$/);
      assert.match(listed.out, /\tbank transfer by the merchant, reference FT-CLI-4$/m);
      assert.match(listed.out, /\tbank transfer by the gateway, reference FT-CLI-1$/m);
    });

    test('--help of every refund command', async () => {
      for (const name of ['list', 'show', 'record']) {
        const help = await cli('refund', name, '--help');
        assert.equal(help.code, 0);
        assert.match(help.out, new RegExp(`refund ${name}`));
      }
    });
  });
}
