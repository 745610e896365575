// `npm run gateway -- refund list|show` on both stores, through runCli with a capturing io,
// over refunds made through the real API.
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

    test('--help of both commands', async () => {
      for (const name of ['list', 'show']) {
        const help = await cli('refund', name, '--help');
        assert.equal(help.code, 0);
        assert.match(help.out, new RegExp(`refund ${name}`));
      }
    });
  });
}
