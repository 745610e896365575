// The initiation write on both stores (app/ports/store.ts PaymentStore.insertOrGet): SQLite group commit on
// the writer thread (a replay's INSERT conflicts and writes nothing), PostgreSQL as one multi-row INSERT per turn.
// Per row the answer must be what one INSERT … ON CONFLICT then SELECT would give.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newTransactionIdentifiers } from '../../src/domain/ids.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import type { PaymentStore } from '../../src/app/ports/store.ts';

const KEY = Buffer.alloc(32, 3);
let n = 0;
function record(merchantId: string, over: Partial<TransactionRecord> = {}): TransactionRecord {
  const createdAt = Date.now();
  return {
    ...newTransactionIdentifiers(createdAt, KEY),
    merchantId,
    trackid: `ins-${process.pid}-${++n}`,
    requestHash: `hash-${n}`,
    status: 'PROCESSING',
    errorCodeTag: null,
    errorText: null,
    amountMinor: 1_500_000n,
    currency: 'THB',
    paymentMethod: 'THAI_DEBIT',
    billCountry: 'TH',
    billCustomerIp: '203.0.113.7',
    billEmail: 'payer@example.com',
    returnUrl: 'https://shop.example/return?a=1&b=2',
    serverUrl: 'https://shop.example/hook',
    payerAccountNo: '1234567890',
    payerAccountName: 'Somchai Jaidee',
    payerBankCode: '014',
    productdesc: null,
    lang: 'th',
    createdAt,
    expiresAt: createdAt + 900_000,
    completedAt: null,
    returnUrlOnFailure: null,
    refundedMinor: 0n,
    payerCheck: null,
    ...over,
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`transaction inserter [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let merchant: string;
    let insertOrGet: PaymentStore['insertOrGet'];
    const count = async () =>
      Number(
        (
          await gw.testStore.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('merchant_id', '=', merchant)
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      gw = await startTestGateway(dialect);
      merchant = (await addMerchant(gw)).merchantid;
      insertOrGet = gw.services.store.payments.insertOrGet;
    });
    after(() => gw?.close());

    test('200 concurrent new initiations: each inserted once and stored exactly as given', async () => {
      const before = await count();
      const records = Array.from({ length: 200 }, () => record(merchant));
      const results = await Promise.all(records.map((r) => insertOrGet(r)));
      assert.ok(results.every((r) => r.inserted));
      assert.equal((await count()) - before, 200);
      for (const r of [records[0]!, records[199]!])
        assert.deepEqual(await gw.services.transactions.findByTrackid(merchant, r.trackid), r);
    });

    test(
      'text that needs escaping in an array literal (quotes, ' +
        'backslashes, braces, commas, NULL, Thai) round-trips exactly',
      async () => {
        const awkward = record(merchant, {
          trackid: `esc-"{a,b}"\\-${n}`,
          payerAccountName: 'O\'Brien, "Bob" {x} \\ สมชาย NULL',
          productdesc: 'NULL',
          lang: null,
          returnUrl: 'https://shop.example/r?q="x",y',
        });
        const [a, b] = await Promise.all([insertOrGet(awkward), insertOrGet(record(merchant, { productdesc: '' }))]);
        assert.equal(a.inserted, true);
        assert.equal(b.inserted, true);
        assert.deepEqual(await gw.services.transactions.findByTrackid(merchant, awkward.trackid), awkward);
        assert.equal((await gw.services.transactions.findByTrackid(merchant, b.row.trackid))?.productdesc, '');
      },
    );

    test('identical requests racing in one batch: exactly one row; every caller gets that row', async () => {
      const first = record(merchant);
      const twins = Array.from({ length: 8 }, () => ({ ...first, ...newTransactionIdentifiers(first.createdAt, KEY) }));
      const results = await Promise.all([first, ...twins].map((r) => insertOrGet(r)));
      assert.equal(results.filter((r) => r.inserted).length, 1);
      const winner = results.find((r) => r.inserted)!.row;
      for (const r of results) assert.deepEqual(r.row, winner);
      const stored = await gw.testStore.db
        .selectFrom('transactions')
        .select('id')
        .where('merchant_id', '=', merchant)
        .where('trackid', '=', first.trackid)
        .execute();
      assert.deepEqual(
        stored.map((s) => s.id),
        [winner.id],
      );
    });

    test(
      'a replay (stored trackid) returns the stored row, ' + 'even with a different hash, and writes nothing',
      async () => {
        const original = record(merchant);
        await insertOrGet(original);
        const writesBefore = gw.testStore.engine.sqliteWriterStats();
        const rowsBefore = await count();
        const again = await Promise.all([
          insertOrGet({ ...original, ...newTransactionIdentifiers(Date.now(), KEY) }),
          insertOrGet({ ...record(merchant), trackid: original.trackid, requestHash: 'other' }),
        ]);
        for (const r of again) {
          assert.equal(r.inserted, false);
          assert.deepEqual(r.row, original);
        }
        // SQLite: each replay was one insert job on the writer thread, which stored nothing new.
        if (writesBefore) assert.equal(gw.testStore.engine.sqliteWriterStats()!.jobs - writesBefore.jobs, 2);
        assert.equal(await count(), rowsBefore);
        assert.equal(
          (
            await gw.testStore.db
              .selectFrom('transactions')
              .select('id')
              .where('trackid', '=', original.trackid)
              .execute()
          ).length,
          1,
        );
      },
    );

    test('one row the database refuses fails alone; its neighbours in the same turn are stored', async () => {
      const before = await count();
      const bad = record(merchant, { amountMinor: 0n }); // violates CHECK (amount_minor > 0)
      const good = [record(merchant), record(merchant), record(merchant)];
      const results = await Promise.allSettled([good[0]!, bad, good[1]!, good[2]!].map((r) => insertOrGet(r)));
      assert.equal(results[1]!.status, 'rejected');
      assert.deepEqual(
        [results[0], results[2], results[3]].map((r) => r!.status),
        ['fulfilled', 'fulfilled', 'fulfilled'],
      );
      assert.equal((await count()) - before, 3);
      assert.equal(await gw.services.transactions.findByTrackid(merchant, bad.trackid), undefined);
    });
  });
}
