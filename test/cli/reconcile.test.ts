// `reconcile --date` on both stores, against kbank-sim: a day's KBank payments asked about again
// and compared with the gateway's records and its ledger (app/processor/daily-reconciliation.ts,
// docs/connectors/kbank.md "Operations"). A paid payment and a refunded one (KBank voided it) line
// up: exit 0, and so does the paid one after two refunds paid by bank transfer (one the gateway's
// operator sent, one the merchant sent): KBank still holds the whole payment and so does clearing
// (docs/ledger.md). A void made at KBank behind the gateway's back is a difference the command
// names: exit 1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/run-cli.ts';
import { testDialects } from '../support/dialects.ts';
import { kbankConnectorFor, kbankEnvFor } from '../support/connector-harnesses.ts';
import { CALLBACK_PATH_TOKEN, startLiveGateway, type LiveGateway } from '../support/live-gateway.ts';
import { post, TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { payoutBalance, type Started } from '../support/lifecycle.ts';
import { CLI_RECORDER } from '../../src/app/record-transfer-refund.ts';

type Run = { code: number; out: string; err: string };
type Report = {
  date: string;
  payments: Array<{
    transactionid: string;
    processor_state: string;
    processor_net: string;
    ledger_net: string;
    differences: string[];
  }>;
  totals: Record<string, { processor: string; ledger: string }>;
  differences: number;
};

for (const { dialect, skip } of await testDialects()) {
  describe(`reconcile [${dialect}]`, { skip }, () => {
    let gw: LiveGateway;
    let paid: Started;
    let refunded: Started;

    const cli = async (...argv: string[]): Promise<Run> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        { out: (t) => out.push(t), err: (t) => err.push(t) },
        {
          DATABASE_URL: gw.testStore.databaseUrl,
          GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
          ...kbankEnvFor(gw.sim, CALLBACK_PATH_TOKEN),
        },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const report = async (...argv: string[]) => {
      const run = await cli('reconcile', '--json', ...argv);
      return { code: run.code, report: JSON.parse(run.out) as Report };
    };
    const payAndSettle = async (p: Started) => {
      const attempt = await gw.showQr(p);
      await gw.pay(attempt.reference);
      await gw.reconcile();
      return attempt;
    };

    before(async () => {
      gw = await startLiveGateway(dialect);
      paid = await gw.start({ bill_amount: '1000.00' });
      await payAndSettle(paid);
      refunded = await gw.start({ bill_amount: '250.50' });
      await payAndSettle(refunded);
      const refund = await post(gw, '/transaction/refund', {
        merchantid: gw.creds.merchantid,
        password: gw.creds.password,
        transactionid: refunded.transactionid,
        bill_currencycode: 'THB',
        bill_amount: '250.50',
      });
      assert.equal(refund.status, 200, refund.raw);
      // Two bank-transfer refunds of the paid payment: KBank is not asked, its settlement unchanged.
      const balance = await payoutBalance(gw, gw.creds.merchantid);
      for (const [transferReference, paidBy] of [
        ['FT-RECON-G', 'gateway'],
        ['FT-RECON-M', 'merchant'],
      ] as const) {
        await gw.services.recordTransfer.record({
          merchantId: gw.creds.merchantid,
          transactionId: paid.transactionid,
          amount: '100.00',
          transferReference,
          paidBy,
          reason: null,
          by: CLI_RECORDER,
        });
      }
      assert.equal(await payoutBalance(gw, gw.creds.merchantid), balance - 100_0000n, 'only the gateway-paid one');
    });
    after(async () => {
      await gw?.close();
    });

    test('a paid (and transfer-refunded) and a voided payment line up with KBank and the ledger: exit 0', async () => {
      const { code, report: r } = await report('--date', '2026-01-05');
      assert.equal(r.differences, 0, JSON.stringify(r.payments));
      assert.equal(code, 0);
      const byId = new Map(r.payments.map((p) => [p.transactionid, p]));
      assert.deepEqual(
        [byId.get(paid.transactionid)?.processor_state, byId.get(paid.transactionid)?.ledger_net],
        ['paid', '1000.0000'],
      );
      assert.deepEqual(
        [byId.get(refunded.transactionid)?.processor_state, byId.get(refunded.transactionid)?.ledger_net],
        ['voided', '0.0000'],
      );
      assert.deepEqual(r.totals.THB, { processor: '1000.0000', ledger: '1000.0000' });
    });

    test('a day without payments: nothing to compare, exit 0', async () => {
      const { code, report: r } = await report('--date', '2026-01-04');
      assert.equal(code, 0);
      assert.deepEqual([r.payments, r.differences], [[], 0]);
    });

    test('not a calendar day: a usage error naming --date, exit 2', async () => {
      for (const bad of ['2026-02-30', '05/01/2026', 'yesterday']) {
        const run = await cli('reconcile', '--date', bad);
        assert.equal(run.code, 2, bad);
        assert.match(run.err, /--date must be a calendar day YYYY-MM-DD/);
      }
    });

    test('the sandbox connector: nothing to reconcile, exit 0', async () => {
      const out: string[] = [];
      const code = await runCli(
        ['reconcile'],
        { out: (t) => out.push(t), err: () => {} },
        {
          DATABASE_URL: gw.testStore.databaseUrl,
          GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
        },
      );
      assert.equal(code, 0);
      assert.match(out.join('\n'), /Nothing to reconcile: the sandbox connector/);
    });

    // Last: it changes the bank's side for good.
    test('a void made at KBank behind the gateway is a difference naming the payment: exit 1', async () => {
      const attempt = (await gw.attempts(paid)).find((a) => a.state === 'paid')!;
      const outside = kbankConnectorFor(gw.sim);
      try {
        await outside.refund({
          refundId: 'made-outside-the-gateway',
          transactionId: paid.transactionid,
          merchantId: gw.creds.merchantid,
          amountMinor: 10_000_000n,
          currency: 'THB',
          reason: null,
          paymentAmountMinor: 10_000_000n,
          refundedMinor: 0n,
          paidAt: attempt.paidAt,
          paymentReference: attempt.reference,
        });
      } finally {
        outside.close();
      }
      const { code, report: r } = await report('--date', '2026-01-05');
      assert.equal(code, 1);
      assert.equal(r.differences, 1);
      const row = r.payments.find((p) => p.transactionid === paid.transactionid)!;
      assert.equal(row.processor_state, 'voided');
      assert.equal(row.ledger_net, '1000.0000');
      assert.match(
        row.differences[0]!,
        /the processor holds 0\.0000 THB for the merchant, the ledger 1000\.0000 THB; payment SUCCESS/,
      );
      assert.deepEqual(r.totals.THB, { processor: '0.0000', ledger: '1000.0000' });
      const table = await cli('reconcile', '--date', '2026-01-05');
      assert.equal(table.code, 1);
      assert.match(table.out, /^TRANSACTIONID\tREFERENCE\tRECORDED\tPROCESSOR/m);
      assert.match(table.out, /2026-01-05 \(Asia\/Bangkok\): 2 payment\(s\) at kbank, 1 difference\(s\)\./);
    });
  });
}
