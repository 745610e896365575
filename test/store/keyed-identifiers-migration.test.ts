// Migration 019 (src/store/migrations/019-keyed-identifiers.ts; docs/architecture.md
// "Identifiers"): over a store with payments whose token and redirect id are of the earlier form,
// the UNIQUE indexes on both columns are gone, only a partial index over earlier-form redirect ids
// is left (a new, keyed row never enters it: the initiation's INSERT maintains neither), the
// other indexes survive SQLite's rebuild, and the old rows are still found by their redirect id,
// through that index.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { insertOldMerchant } from '../support/old-rows.ts';
import { legacyIdentifiers } from '../support/legacy-identifiers.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { storeOver } from '../../src/store/open-store.ts';
import { migrateTo } from '../../src/store/migrations/index.ts';
import { PG_TRANSACTION_LOOKUPS } from '../../src/store/postgres/transaction-lookups.ts';
import { newTransactionIdentifiers } from '../../src/domain/ids.ts';
import { transactionIdOf } from '../../src/domain/keyed-ids.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';

const KEY = Buffer.alloc(32, 5);

/** Every index on transactions: its name, its columns, and its WHERE (partial) or null. */
async function indexesOf(
  engine: StoreEngine,
): Promise<Array<{ name: string; columns: string[]; where: string | null }>> {
  if (engine.dialect === 'sqlite') {
    const list = (await sql<{ name: string; partial: number }>`pragma index_list(transactions)`.execute(engine.db))
      .rows;
    const out = [];
    for (const { name } of list) {
      const info = (await sql<{ name: string }>`select name from pragma_index_info(${name})`.execute(engine.db)).rows;
      const ddl = (
        await sql<{ sql: string | null }>`select sql from sqlite_schema where name = ${name}`.execute(engine.db)
      ).rows[0]?.sql;
      out.push({
        name,
        columns: info.map((c) => c.name),
        where: /\bwhere\b(.*)$/is.exec(ddl ?? '')?.[1]?.trim() ?? null,
      });
    }
    return out;
  }
  const rows = (
    await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where tablename = 'transactions'`.execute(engine.db)
  ).rows;
  return rows.map((r) => ({
    name: r.indexname,
    columns: (/\((.*?)\)/.exec(r.indexdef)?.[1] ?? '').split(',').map((c) => c.trim()),
    where: /\bWHERE\b(.*)$/.exec(r.indexdef)?.[1]?.trim() ?? null,
  }));
}

function row(merchantId: string, n: number, ids: { id: string; token: string; redirectId: string }): TransactionRecord {
  const now = Date.now();
  return {
    ...ids,
    merchantId,
    trackid: `mig-${n}`,
    requestHash: 'h',
    status: 'PROCESSING',
    errorCodeTag: null,
    errorText: null,
    amountMinor: 1_000_000n,
    currency: 'THB',
    paymentMethod: 'THAI_DEBIT',
    billCountry: 'TH',
    billCustomerIp: '203.0.113.1',
    billEmail: 'a@b.co',
    returnUrl: 'https://s.example/r',
    serverUrl: 'https://s.example/n',
    payerAccountNo: '1234567890',
    payerAccountName: 'A',
    payerBankCode: '014',
    productdesc: null,
    lang: 'en',
    createdAt: now,
    expiresAt: now + 900_000,
    completedAt: null,
    returnUrlOnFailure: null,
    refundedMinor: 0n,
    payerCheck: null,
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`migration 019: keyed identifiers [${dialect}]`, { skip }, () => {
    test('existing rows keep their ids and are found; no index maintained for new ones', async () => {
      const database = await createTestDatabase(dialect);
      const engine = openStoreEngine(database.databaseUrl);
      try {
        await migrateTo(engine.db, '018-ledger-checks-per-statement');
        const now = Date.now();
        await insertOldMerchant(engine.db, now);
        // Two payments made before the migration, with the earlier form of ids.
        const old = [1, 2].map((n) => ({
          n,
          ids: { id: `0190aaaa-0000-7000-8000-00000000000${n}`, ...legacyIdentifiers(now) },
        }));
        const before = storeOver(engine);
        for (const { n, ids } of old) assert.ok((await before.payments.insertOrGet(row('m1', n, ids))).inserted);
        const indexesBefore = (await indexesOf(engine)).map((i) => i.name).filter((n) => !n.startsWith('sqlite_auto'));

        // Up to 019 only: later migrations may change the other indexes (020 drops the console's).
        assert.deepEqual(await migrateTo(engine.db, '019-keyed-identifiers'), ['019-keyed-identifiers']);
        const store = storeOver(engine);

        const indexes = await indexesOf(engine);
        assert.deepEqual(
          indexes.filter((i) => i.columns.includes('token')),
          [],
          'no index on transactions.token',
        );
        const onRedirect = indexes.filter((i) => i.columns.includes('redirect_id'));
        assert.equal(onRedirect.length, 1, JSON.stringify(onRedirect));
        assert.equal(onRedirect[0]!.name, 'transactions_legacy_redirect_id');
        assert.match(
          onRedirect[0]!.where ?? '',
          /^\(?length\(redirect_id\) <> 44\)?$/,
          'partial: earlier-form ids only',
        );
        assert.deepEqual(
          indexes
            .map((i) => i.name)
            .filter((n) => !n.startsWith('sqlite_auto') && n !== 'transactions_legacy_redirect_id')
            .sort(),
          [...indexesBefore].filter((n) => !/_(token|redirect_id)_key$/.test(n)).sort(),
          'every other index survived',
        );

        // The old rows: found by their own redirect id, nobody else's, and never by a token.
        for (const { ids } of old) {
          const found = await store.payments.findByRedirectId(ids.redirectId, undefined);
          assert.equal(found?.id, ids.id);
          assert.equal(found?.token, ids.token);
          assert.equal(await store.payments.findByRedirectId(ids.token, undefined), undefined);
        }
        assert.equal(await store.payments.findByRedirectId(legacyIdentifiers(now).redirectId, undefined), undefined);

        // A new payment: keyed ids (44 characters, outside the partial index), found by primary key.
        const fresh = newTransactionIdentifiers(Date.now(), KEY);
        assert.ok((await store.payments.insertOrGet(row('m1', 3, fresh))).inserted);
        assert.equal(fresh.redirectId.length, 44);
        const carried = transactionIdOf(KEY, 'redirect-id', fresh.redirectId);
        assert.equal((await store.payments.findByRedirectId(fresh.redirectId, carried))?.id, fresh.id);
        assert.equal(await store.payments.findByRedirectId(fresh.redirectId, undefined), undefined, 'not a legacy id');
        // A keyed id for an old row's transaction id finds nothing: the stored id must be the presented one.
        const oldId = old[0]!.ids.id;
        assert.equal(await store.payments.findByRedirectId(fresh.redirectId, oldId), undefined);

        // Both databases use the partial index for the earlier-form lookup (its predicate repeated).
        const legacy = old[0]!.ids.redirectId;
        if (dialect === 'sqlite') {
          const plan = await sql<{ detail: string }>`explain query plan select * from transactions
            where redirect_id = ${legacy} and length(redirect_id) <> 44`.execute(engine.db);
          assert.match(plan.rows.map((r) => r.detail).join('\n'), /USING INDEX transactions_legacy_redirect_id/);
        } else {
          const client = await engine.pgPool!.connect();
          try {
            await client.query('set enable_seqscan = off');
            const plan = await client.query(
              `explain ${PG_TRANSACTION_LOOKUPS.byLegacyRedirectId.text.replace('$1', `'${legacy}'`)}`,
            );
            assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /transactions_legacy_redirect_id/);
          } finally {
            await client.query('reset enable_seqscan');
            client.release();
          }
        }
      } finally {
        await engine.close();
        await database.drop();
      }
    });
  });
}
