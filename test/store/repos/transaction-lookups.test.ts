// The request path's one-row lookups (TransactionsRepo.findByTrackid / findById /
// findByRedirectId: by the id a keyed redirect id carries, or an id of the earlier form) on both
// stores. On PostgreSQL they are named statements batched per
// event-loop turn (store/pg-transaction-lookups.ts): however many are asked for at once, each
// caller gets exactly the row of its own key, scoped to its merchant, or none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  findByRedirectId,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { startPayment, type Started } from '../../support/lifecycle.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`transaction lookups [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let a: MerchantCredentials;
    let b: MerchantCredentials;
    const paymentsA: Started[] = [];
    const paymentsB: Started[] = [];
    before(async () => {
      gw = await startTestGateway(dialect);
      a = await addMerchant(gw);
      b = await addMerchant(gw);
      for (let i = 0; i < 6; i++) {
        paymentsA.push(await startPayment(gw, a, { bill_amount: `${100 + i}` }));
        // The same trackid at another merchant: a lookup must never cross merchants.
        const trackid = paymentsA[i]!.trackid;
        paymentsB.push({ ...(await startPayment(gw, b, { bill_amount: `${200 + i}`, trackid })), trackid });
      }
    });
    after(() => gw?.close());

    test(
      'many lookups at once: each gets its own row ' + '(merchant-scoped), missing keys get none, repeats agree',
      async () => {
        const repo = gw.services.transactions;
        const asked = [
          ...paymentsA.map((p) => ({ merchant: a.merchantid, p })),
          ...paymentsB.map((p) => ({ merchant: b.merchantid, p })),
          { merchant: a.merchantid, p: paymentsA[0]! }, // the same key twice in one turn
        ];
        const [byTrackid, byId, byRedirectId] = await Promise.all([
          Promise.all(asked.map(({ merchant, p }) => repo.findByTrackid(merchant, p.trackid))),
          Promise.all(asked.map(({ merchant, p }) => repo.findById(merchant, p.transactionid))),
          Promise.all(asked.map(({ p }) => findByRedirectId(gw, p.redirectId))),
        ]);
        asked.forEach(({ merchant, p }, i) => {
          for (const found of [byTrackid[i], byId[i], byRedirectId[i]]) {
            assert.equal(
              found?.id,
              p.transactionid,
              `lookup ${i}: ${[byTrackid[i], byId[i], byRedirectId[i]].map((t) => t?.id).join(' ')}`,
            );
            assert.equal(found?.merchantId, merchant);
            assert.equal(found?.trackid, p.trackid);
            assert.equal(found?.redirectId, p.redirectId);
          }
        });
        assert.equal(byTrackid[0]?.amountMinor, 1_000_000n, 'exact money through the batch too');

        const missing = await Promise.all([
          repo.findByTrackid(a.merchantid, 'no-such-trackid'),
          repo.findByTrackid(a.merchantid, paymentsA[1]!.trackid),
          repo.findById(b.merchantid, paymentsA[2]!.transactionid), // another merchant's transaction
          repo.findById(a.merchantid, paymentsA[2]!.transactionid),
          findByRedirectId(gw, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
          findByRedirectId(gw, paymentsB[3]!.redirectId),
        ]);
        assert.equal(missing[0], undefined);
        assert.equal(missing[1]?.id, paymentsA[1]!.transactionid);
        assert.equal(missing[2], undefined);
        assert.equal(missing[3]?.id, paymentsA[2]!.transactionid);
        assert.equal(missing[4], undefined);
        assert.equal(missing[5]?.id, paymentsB[3]!.transactionid);
      },
    );

    test('a key the store refuses fails only its own lookup, not the others of its turn', async () => {
      const repo = gw.services.transactions;
      const [good1, bad, good2] = await Promise.allSettled([
        repo.findByTrackid(a.merchantid, paymentsA[0]!.trackid),
        repo.findByTrackid(a.merchantid, 'nul\u0000byte'), // PostgreSQL refuses a NUL in text
        repo.findByTrackid(b.merchantid, paymentsB[1]!.trackid),
      ]);
      assert.equal(good1.status === 'fulfilled' && good1.value?.id, paymentsA[0]!.transactionid);
      assert.equal(good2.status === 'fulfilled' && good2.value?.id, paymentsB[1]!.transactionid);
      assert.ok(bad.status === 'rejected' || bad.value === undefined);
    });

    test('a lookup sees the state as of its own read (after a completion, the final state)', async () => {
      const p = await startPayment(gw, a, { bill_amount: '100' });
      assert.equal((await findByRedirectId(gw, p.redirectId))?.status, 'PROCESSING');
      await gw.services.complete.execute(p.transactionid, 'confirm');
      const [byRedirect, byTrackid] = await Promise.all([
        findByRedirectId(gw, p.redirectId),
        gw.services.transactions.findByTrackid(a.merchantid, p.trackid),
      ]);
      assert.equal(byRedirect?.status, 'SUCCESS');
      assert.equal(byTrackid?.status, 'SUCCESS');
    });

    test(
      'PostgreSQL: lookups asked for in one turn share one statement',
      { skip: dialect !== 'postgres' && 'PostgreSQL only' },
      async () => {
        const pool = gw.testStore.engine.pgPool!;
        const original = pool.query.bind(pool);
        const names: string[] = [];
        pool.query = ((config: { name?: string }, ...rest: unknown[]) => {
          if (String(config?.name).startsWith('transactions_by_')) names.push(String(config?.name));
          return (original as (...args: unknown[]) => unknown)(config, ...rest);
        }) as typeof pool.query;
        try {
          const found = await Promise.all(
            paymentsA.map((p) => gw.services.transactions.findByTrackid(a.merchantid, p.trackid)),
          );
          assert.deepEqual(
            found.map((t) => t?.id),
            paymentsA.map((p) => p.transactionid),
          );
          assert.deepEqual(names, ['transactions_by_trackids_v1']);
          names.length = 0;
          assert.equal(
            (await gw.services.transactions.findByTrackid(a.merchantid, paymentsA[0]!.trackid))?.id,
            paymentsA[0]!.transactionid,
          );
          assert.deepEqual(names, ['transactions_by_trackid_v1'], 'a lone lookup uses the one-key statement');
        } finally {
          pool.query = original;
        }
      },
    );
  });
}
