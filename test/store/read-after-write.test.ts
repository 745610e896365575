// Read-your-writes on the request path's reads (docs/architecture.md "Store"): once a write is
// acknowledged, every read issued after it sees it. On SQLite the reads run on the main
// thread's read connection; the one-row lookups of one event-loop turn run together in its check
// phase, in one read transaction (store/sqlite/lookup-batches.ts). Other lookups keep running in
// the background here, so acknowledgements arrive among them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, findByRedirectId, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import type { MerchantCredentials } from '../support/test-gateway.ts';
import { startPayment } from '../support/lifecycle.ts';

/** Looks a row up on every timer tick until stopped. */
function readInTheBackground(gw: TestGateway, merchantId: string, trackid: string): () => Promise<void> {
  let stop = false;
  const done = (async () => {
    while (!stop) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      await gw.services.transactions.findByTrackid(merchantId, trackid);
    }
  })();
  return () => {
    stop = true;
    return done;
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`read after write [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let first: Awaited<ReturnType<typeof startPayment>>;
    before(async () => {
      gw = await startTestGateway(dialect, { RATE_LIMIT_PER_MERCHANT_PER_SECOND: '1000000' });
      merchant = await addMerchant(gw);
      first = await startPayment(gw, merchant);
    });
    after(() => gw?.close());

    test('an acknowledged initiation is found at once by every lookup and by a plain read', async () => {
      const stopReading = readInTheBackground(gw, merchant.merchantid, first.trackid);
      try {
        for (let i = 0; i < 40; i++) {
          const p = await startPayment(gw, merchant);
          const [byTrackid, byId, byRedirectId] = [
            await gw.services.transactions.findByTrackid(merchant.merchantid, p.trackid),
            await gw.services.transactions.findById(merchant.merchantid, p.transactionid),
            await findByRedirectId(gw, p.redirectId),
          ];
          const plain = await gw.testStore.db
            .selectFrom('transactions')
            .select('id')
            .where('id', '=', p.transactionid)
            .executeTakeFirst();
          for (const found of [byTrackid?.id, byId?.id, byRedirectId?.id, plain?.id])
            assert.equal(found, p.transactionid, `payment ${i}`);
        }
      } finally {
        await stopReading();
      }
    });

    test('an acknowledged completion is seen at once: status and page show the final state', async () => {
      const stopReading = readInTheBackground(gw, merchant.merchantid, first.trackid);
      try {
        for (let i = 0; i < 20; i++) {
          const p = await startPayment(gw, merchant);
          // The page's read of the open payment first, so the row is in the read connection's cache.
          assert.equal((await findByRedirectId(gw, p.redirectId))?.status, 'PROCESSING');
          await gw.services.complete.execute(p.transactionid, i % 2 ? 'confirm' : 'cancel');
          const byTrackid = await gw.services.transactions.findByTrackid(merchant.merchantid, p.trackid);
          const byRedirectId = await findByRedirectId(gw, p.redirectId);
          const expected = i % 2 ? 'SUCCESS' : 'FAILED';
          assert.equal(byTrackid?.status, expected, `payment ${i}`);
          assert.equal(byRedirectId?.status, expected, `payment ${i}`);
        }
      } finally {
        await stopReading();
      }
    });

    test(
      'SQLite: the lookups of one turn run together, after everything committed before they were asked for',
      { skip: dialect !== 'sqlite' && 'SQLite only' },
      async () => {
        const p = await startPayment(gw, merchant);
        const other = new DatabaseSync(gw.testStore.databaseUrl.slice('sqlite:'.length));
        try {
          const find = () => gw.services.transactions.findByTrackid(merchant.merchantid, p.trackid);
          const first = find();
          // Another process commits after the first lookup was asked for and before the second,
          // in the same turn: both run after it (the first too: it waited for the check phase),
          // in one read transaction, and agree.
          other
            .prepare('update transactions set productdesc = ? where id = ?')
            .run('changed elsewhere', p.transactionid);
          const second = find();
          const missing = gw.services.transactions.findByTrackid(merchant.merchantid, 'no-such-trackid');
          assert.equal((await second)?.productdesc, 'changed elsewhere');
          assert.equal((await first)?.productdesc, 'changed elsewhere');
          assert.equal(await missing, undefined);
        } finally {
          other.close();
        }
      },
    );

    test(
      'SQLite: a lookup that fails fails alone, and no read transaction outlives its batch',
      { skip: dialect !== 'sqlite' && 'SQLite only' },
      async () => {
        const lookups = gw.testStore.engine.sqliteLookups!;
        const sql = 'select id from transactions where id = ?';
        const [good, bad, alsoGood] = await Promise.allSettled([
          lookups.first(sql, [first.transactionid]),
          lookups.first(sql, [{ not: 'a value SQLite binds' }]),
          lookups.first(sql, [first.transactionid]),
        ]);
        assert.deepEqual(good.status === 'fulfilled' && { ...(good.value as object) }, { id: first.transactionid });
        assert.equal(bad.status, 'rejected');
        assert.deepEqual(alsoGood.status === 'fulfilled' && { ...(alsoGood.value as object) }, {
          id: first.transactionid,
        });
        // A read transaction left open would hold the WAL: a truncating checkpoint from another
        // connection (no busy wait) would report busy.
        const other = new DatabaseSync(gw.testStore.databaseUrl.slice('sqlite:'.length));
        try {
          other.exec('PRAGMA busy_timeout = 0');
          const result = other.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
          assert.equal(result.busy, 0);
        } finally {
          other.close();
        }
      },
    );
  });
}
