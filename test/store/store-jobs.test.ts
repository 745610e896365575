// Store jobs (store/job-runner.ts) on both stores. On SQLite, jobs arriving together share one
// transaction and one fsync on the writer thread; on PostgreSQL each runs in its own. Either way
// every caller must get what running alone would give: no lost update, a failing job changes
// nothing and does not fail its neighbours (and keeps its error's tag), completions post exactly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerOperations } from '../../src/app/ledger-operations.ts';
import { isGatewayError } from '../../src/domain/errors.ts';
import { createJobRunner, type JobRunner } from '../../src/store/job-runner.ts';
import { storeJobs, TEST_STORE_JOBS_MODULE } from '../support/test-store-jobs.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { payoutBalance, startPayment } from '../support/lifecycle.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`store jobs [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let runJob: JobRunner<typeof storeJobs>;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
      runJob = createJobRunner(gw.testStore.engine, storeJobs, TEST_STORE_JOBS_MODULE);
    });
    after(() => gw?.close());

    const feeRate = async () =>
      Number(
        (
          await gw.testStore.db
            .selectFrom('merchants')
            .select('fee_rate_ppm')
            .where('id', '=', creds.merchantid)
            .executeTakeFirstOrThrow()
        ).fee_rate_ppm,
      );
    const bump = () => runJob('bumpFeeRate', { merchantId: creds.merchantid });

    test('25 concurrent read-modify-write jobs lose no update, and each sees the ones before it', async () => {
      const start = await feeRate();
      const seen = await Promise.all(Array.from({ length: 25 }, bump));
      assert.equal(await feeRate(), start + 25);
      assert.deepEqual(
        [...seen].sort((a, b) => a - b),
        Array.from({ length: 25 }, (_, i) => start + i + 1),
      );
    });

    test(
      'a job that throws changes nothing and fails alone, ' +
        'with its GatewayError and tag; the rest of its group commits',
      async () => {
        const start = await feeRate();
        const results = await Promise.allSettled([
          bump(),
          runJob('bumpThenRefuse', { merchantId: creds.merchantid }),
          bump(),
        ]);
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        const reason = (results[1] as PromiseRejectedResult).reason;
        assert.ok(isGatewayError(reason), `a GatewayError, got ${String(reason)}`);
        assert.equal(reason.tag, 'INVALID_STATE');
        assert.equal(reason.message, 'refused after writing');
        assert.equal(await feeRate(), start + 2);
      },
    );

    test(
      'completions under load: 30 successes, ' + 'a repeat and an unknown id together — exact ledger, one ending each',
      async () => {
        // The tests above raised the fee rate; no fee here keeps the expected balance plain.
        await gw.testStore.db
          .updateTable('merchants')
          .set({ fee_rate_ppm: 0 })
          .where('id', '=', creds.merchantid)
          .execute();
        const payments = [];
        for (let i = 0; i < 30; i++) payments.push(await startPayment(gw, creds, { bill_amount: '100.25' }));
        const balanceBefore = await payoutBalance(gw, creds.merchantid);
        const { complete } = gw.services;
        const outcomes = await Promise.allSettled([
          ...payments.map((p) => complete.execute(p.transactionid, 'sandbox', { merchantId: creds.merchantid })),
          complete.execute(payments[0]!.transactionid, 'sandbox', { merchantId: creds.merchantid }),
          complete.execute('01a0a0a0-0000-7000-8000-000000000000', 'sandbox', { merchantId: creds.merchantid }),
        ]);
        const rejected = outcomes
          .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
          .map((o) => (isGatewayError(o.reason) ? o.reason.tag : String(o.reason)));
        // The first completion of payments[0] and its repeat race: exactly one of them wins.
        assert.deepEqual(rejected.sort(), ['INVALID_STATE', 'NOT_FOUND']);
        assert.equal(await payoutBalance(gw, creds.merchantid), balanceBefore + 30n * 1_002_500n);
        const events = await gw.testStore.db
          .selectFrom('outbox_events')
          .select('transaction_id')
          .where('merchant_id', '=', creds.merchantid)
          .execute();
        assert.equal(
          new Set(events.map((e) => e.transaction_id)).size,
          events.length,
          'one outbox event per transaction',
        );
        const { store, ledger, merchants, now } = gw.services;
        assert.equal((await new LedgerOperations({ store, ledger, merchants, now }).verify()).ok, true);
      },
    );
  });
}
