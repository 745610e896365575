// The console's payment search table, written behind the commit (migration 020; docs/architecture.md
// "Payment search"), on both stores:
// - the initiation's commit maintains three secondary indexes on transactions, no more;
// - an initiation or a change of state is queued in its own commit, and the search table gets it
//   from the queue: on the console's search (which catches up first), or from the indexer worker
//   without anybody searching;
// - the queue is durable (a store closed before catching up still has it), a search row's state
//   never moves back to PROCESSING, and every filter finds what the payments say;
// - migration 020 carries existing payments into the table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { insertOldMerchant, insertOldPayment } from '../support/old-rows.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { startPayment } from '../support/lifecycle.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { storeOver } from '../../src/store/open-store.ts';
import { migrateTo } from '../../src/store/migrations/index.ts';
import { PaymentSearchIndexer } from '../../src/app/payment-search-indexer.ts';
import type { PaymentSearch } from '../../src/app/ports/console.ts';

/** Indexes on transactions that a new row enters: not the primary key, not a partial index. */
async function maintainedIndexes(engine: StoreEngine): Promise<string[]> {
  if (engine.dialect === 'sqlite') {
    const list = await sql<{ name: string; origin: string; partial: number }>`
      select name, origin, partial from pragma_index_list('transactions')`.execute(engine.db);
    return list.rows.filter((i) => i.origin !== 'pk' && i.partial === 0).map((i) => i.name);
  }
  const list = await sql<{ name: string }>`
    select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = 'transactions'::regclass and not i.indisprimary and i.indpred is null`.execute(engine.db);
  return list.rows.map((i) => i.name);
}

async function searchRow(engine: StoreEngine, id: string) {
  return engine.db.selectFrom('payment_search').selectAll().where('id', '=', id).executeTakeFirst();
}

async function queued(engine: StoreEngine): Promise<string[]> {
  const rows = await engine.db.selectFrom('payment_search_queue').select('transaction_id').orderBy('seq').execute();
  return rows.map((r) => r.transaction_id);
}

for (const { dialect, skip } of await testDialects()) {
  describe(`payment search table [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let other: MerchantCredentials;
    const engine = () => gw.testStore.engine;
    const search = (s: Omit<PaymentSearch, 'limit'>) => gw.testStore.store.consoleReads.search({ limit: 50, ...s });

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
      other = await addMerchant(gw);
    });
    after(() => gw?.close());

    test("an initiation's commit maintains three indexes on transactions besides its primary key", async () => {
      assert.deepEqual(
        (await maintainedIndexes(engine())).sort(),
        dialect === 'sqlite'
          ? // (merchant_id, trackid) is migration 002's inline UNIQUE, which SQLite names itself.
            ['sqlite_autoindex_transactions_2', 'transactions_merchant_created', 'transactions_processing_expiry']
          : ['transactions_merchant_created', 'transactions_merchant_trackid', 'transactions_processing_expiry'],
      );
    });

    test('an initiation and a completion are queued in their commits and indexed from the queue', async () => {
      await gw.testStore.store.searchIndex.catchUp();
      const p = await startPayment(gw, creds, { bill_amount: '123.45', bill_email: 'Queue.Me@Example.com' });
      assert.deepEqual(await queued(engine()), [p.transactionid], 'queued with the payment');
      assert.equal(await searchRow(engine(), p.transactionid), undefined, 'not written in the commit');

      assert.equal(await gw.testStore.store.searchIndex.catchUp(), 1);
      assert.deepEqual(await queued(engine()), []);
      const row = await searchRow(engine(), p.transactionid);
      assert.deepEqual(
        { ...row, amount_minor: BigInt(row!.amount_minor), created_at: Number(row!.created_at) },
        {
          id: p.transactionid,
          merchant_id: creds.merchantid,
          trackid: p.trackid,
          email: 'queue.me@example.com',
          amount_minor: 1_234_500n,
          status: 'PROCESSING',
          created_at: gw.clock.now,
        },
      );

      await gw.services.complete.execute(p.transactionid, 'sandbox', { override: 'success' });
      assert.deepEqual(await queued(engine()), [p.transactionid], 'the change of state is queued');
      await gw.testStore.store.searchIndex.catchUp();
      assert.equal((await searchRow(engine(), p.transactionid))?.status, 'SUCCESS');

      // An update that leaves the state alone queues nothing.
      await sql`update transactions set refunded_minor = 1 where id = ${p.transactionid}`.execute(engine().db);
      assert.deepEqual(await queued(engine()), []);
    });

    test("the console's search sees a payment at once, without waiting for the indexer", async () => {
      const p = await startPayment(gw, creds);
      assert.deepEqual(
        (await search({ trackid: p.trackid })).map((t) => t.id),
        [p.transactionid],
      );
      await gw.services.complete.execute(p.transactionid, 'sandbox', { override: 'failed' });
      assert.deepEqual(
        (await search({ trackid: p.trackid, status: 'FAILED' })).map((t) => t.id),
        [p.transactionid],
      );
      assert.deepEqual(await search({ trackid: p.trackid, status: 'PROCESSING' }), []);
    });

    test('the indexer worker writes queued payments without anybody searching', async () => {
      const p = await startPayment(gw, creds);
      const indexer = new PaymentSearchIndexer(gw.testStore.store.searchIndex, 50);
      indexer.start();
      try {
        for (let i = 0; i < 200 && !(await searchRow(engine(), p.transactionid)); i++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        assert.ok(await searchRow(engine(), p.transactionid), 'indexed by the worker');
        assert.deepEqual(await queued(engine()), []);
      } finally {
        await indexer.stop();
      }
    });

    test('a search row never moves back to PROCESSING (batches of several instances in any order)', async () => {
      const p = await startPayment(gw, creds);
      await gw.services.complete.execute(p.transactionid, 'sandbox', { override: 'success' });
      await gw.testStore.store.searchIndex.catchUp();
      // A batch that read the payment before its completion, written after the completion's batch.
      await sql`update transactions set status = 'PROCESSING' where id = ${p.transactionid}`.execute(engine().db);
      assert.deepEqual(await queued(engine()), [p.transactionid]);
      await gw.testStore.store.searchIndex.catchUp();
      assert.equal((await searchRow(engine(), p.transactionid))?.status, 'SUCCESS');
      await sql`update transactions set status = 'SUCCESS' where id = ${p.transactionid}`.execute(engine().db);
      await gw.testStore.store.searchIndex.catchUp();
    });

    test('every filter finds what the payments say, scoped, newest first, in keyset pages', async () => {
      // Later than every earlier test's payment: the date filters below see this test's only.
      const start = (gw.clock.now += 60_000);
      const mine: Array<{ n: number; transactionid: string; trackid: string }> = [];
      for (const [n, amount, email] of [
        [1, '110.00', 'Filter.One@example.com'],
        [2, '120.00', 'filter.two@example.com'],
        [3, '110.00', 'filter.two@example.com'],
      ] as const) {
        gw.clock.now += 1000;
        mine.push({ n, ...(await startPayment(gw, creds, { bill_amount: amount, bill_email: email })) });
      }
      gw.clock.now += 1000;
      const theirs = await startPayment(gw, other, { bill_amount: '110.00', bill_email: 'filter.two@example.com' });
      await gw.services.complete.execute(mine[0]!.transactionid, 'sandbox', { override: 'success' });
      const ids = (s: Omit<PaymentSearch, 'limit'>) => search(s).then((rows) => rows.map((r) => r.id));
      const id = (n: number) => mine[n - 1]!.transactionid;

      assert.deepEqual(await ids({ email: 'FILTER.TWO@example.com' }), [theirs.transactionid, id(3), id(2)]);
      assert.deepEqual(await ids({ email: 'filter.two@example.com', merchantId: creds.merchantid }), [id(3), id(2)]);
      assert.deepEqual(await ids({ amountMinor: 1_100_000n, merchantId: creds.merchantid }), [id(3), id(1)]);
      assert.deepEqual(await ids({ trackid: mine[1]!.trackid }), [id(2)]);
      assert.deepEqual(await ids({ trackid: mine[1]!.trackid, merchantId: other.merchantid }), [], 'scoped');
      assert.deepEqual(await ids({ status: 'SUCCESS', merchantId: creds.merchantid, from: start }), [id(1)]);
      assert.deepEqual(await ids({ merchantId: creds.merchantid, from: gw.clock.now - 1500 }), [id(3)]);
      const firstPage = await search({ merchantId: creds.merchantid, from: start });
      assert.deepEqual(
        firstPage.map((r) => r.id),
        [id(3), id(2), id(1)],
      );
      const newest = firstPage[0]!;
      assert.deepEqual(
        await ids({ merchantId: creds.merchantid, before: { createdAt: newest.createdAt, id: newest.id } }).then(
          (all) => all.slice(0, 2),
        ),
        [id(2), id(1)],
      );
      // By id: the payment's own row, with the other filters applied to it.
      assert.deepEqual(await ids({ transactionId: id(2) }), [id(2)]);
      assert.deepEqual(await ids({ transactionId: id(2), merchantId: other.merchantid }), []);
      assert.deepEqual(await ids({ transactionId: id(2), email: 'Filter.Two@Example.com' }), [id(2)]);
      assert.deepEqual(await ids({ transactionId: id(2), amountMinor: 1_100_000n }), []);
    });
  });

  describe(`payment search table, durability and migration 020 [${dialect}]`, { skip }, () => {
    test('what is queued survives the store being closed before catching up', async () => {
      const database = await createTestDatabase(dialect);
      try {
        let engine = openStoreEngine(database.databaseUrl);
        await engine.migrate();
        const now = Date.now();
        await insertOldMerchant(engine.db, now);
        await insertOldPayment(engine.db, now, { bill_email: 'Durable@Example.com' });
        await engine.close();

        engine = openStoreEngine(database.databaseUrl);
        try {
          const store = storeOver(engine);
          assert.deepEqual(await queued(engine), ['t1']);
          assert.deepEqual(
            (await store.consoleReads.search({ limit: 5, email: 'durable@example.com' })).map((t) => t.id),
            ['t1'],
          );
        } finally {
          await engine.close();
        }
      } finally {
        await database.drop();
      }
    });

    test('two instances catching up at once lose no payment and no change of state', async () => {
      if (dialect === 'sqlite') return; // one process serves a SQLite file (docs/operations.md)
      const database = await createTestDatabase(dialect);
      const engines = [openStoreEngine(database.databaseUrl), openStoreEngine(database.databaseUrl)];
      try {
        await engines[0]!.migrate();
        const now = Date.now();
        await insertOldMerchant(engines[0]!.db, now);
        const [a, b] = engines.map((engine) => storeOver(engine));
        const ids = Array.from({ length: 300 }, (_, i) => `p${String(i).padStart(3, '0')}`);
        // Payments arrive and end while both instances catch up in a loop.
        let writing = true;
        const catchUps = [a!, b!].map(async (store) => {
          while (writing) await store.searchIndex.catchUp();
        });
        for (const [i, id] of ids.entries()) {
          await insertOldPayment(engines[i % 2]!.db, now + i, {
            id,
            trackid: id,
            token: `k${id}`,
            redirect_id: `r${id}`,
            status: 'PROCESSING',
            completed_at: null,
          });
          if (i % 3 === 0)
            await sql`update transactions set status = 'SUCCESS' where id = ${ids[i / 3]!}`.execute(engines[0]!.db);
        }
        writing = false;
        await Promise.all(catchUps);
        await Promise.all([a!.searchIndex.catchUp(), b!.searchIndex.catchUp()]);

        const expected = await engines[0]!.db
          .selectFrom('transactions')
          .select(['id', 'status'])
          .orderBy('id')
          .execute();
        const indexed = await engines[0]!.db
          .selectFrom('payment_search')
          .select(['id', 'status'])
          .orderBy('id')
          .execute();
        assert.deepEqual(indexed, expected);
        assert.deepEqual(await queued(engines[0]!), []);
      } finally {
        await Promise.all(engines.map((engine) => engine.close()));
        await database.drop();
      }
    });

    test('migration 020 puts existing payments into the search table and drops the console indexes', async () => {
      const database = await createTestDatabase(dialect);
      const engine = openStoreEngine(database.databaseUrl);
      try {
        await migrateTo(engine.db, '019-keyed-identifiers');
        const now = Date.now();
        await insertOldMerchant(engine.db, now);
        await insertOldPayment(engine.db, now, { bill_email: 'Old.Buyer@Example.com' });
        assert.equal((await engine.migrate())[0], '020-payment-search', 'the next migration is 020');

        assert.deepEqual(await queued(engine), [], 'carried over directly, not through the queue');
        const row = await searchRow(engine, 't1');
        assert.equal(row?.email, 'old.buyer@example.com');
        assert.equal(row?.status, 'SUCCESS');
        const store = storeOver(engine);
        assert.deepEqual(
          (await store.consoleReads.search({ limit: 5, amountMinor: 1_000_000n, status: 'SUCCESS' })).map((t) => t.id),
          ['t1'],
        );
        const indexes = await maintainedIndexes(engine);
        for (const gone of [
          'transactions_created',
          'transactions_email',
          'transactions_amount',
          'transactions_trackid',
        ])
          assert.ok(!indexes.includes(gone), `${gone} dropped`);
      } finally {
        await engine.close();
        await database.drop();
      }
    });
  });
}
