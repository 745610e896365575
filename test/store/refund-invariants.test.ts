// Migrations 012 and 017 on both stores: the database itself keeps refunds honest whatever the
// code does (refunded total within the captured amount and only on SUCCESS; a refund journal entry
// must match its refund, crediting clearing for a processor refund and operator_adjustment for a
// bank transfer the gateway paid, and a transfer the merchant paid has none; who paid a transfer is
// stored exactly for bank-transfer refunds; one result notification per payment, one per refund),
// and the migration keeps every row written before it (the SQLite table rebuilds included).
import { RefundsRepo } from '../../src/store/repos/refunds.repo.ts';
import { LedgerRepo } from '../../src/store/repos/ledger.repo.ts';
import { postEntry } from '../support/ledger-post.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { insertOldMerchant, insertOldPayment } from '../support/old-rows.ts';
import { startPayment } from '../support/lifecycle.ts';
import { openStoreEngine } from '../../src/store/engine.ts';
import { migrateTo } from '../../src/store/migrations/index.ts';
import { refundPostings } from '../../src/domain/ledger.ts';
import { LedgerOperations } from '../../src/app/ledger-operations.ts';
import { insertOutboxEvent } from '../../src/store/repos/outbox.repo.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`refund invariants in the database [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    const db = () => gw.testStore.db;
    async function paidAndRefunded(amount: string, refund: string): Promise<{ txid: string; refundid: string }> {
      const p = await startPayment(gw, creds, { bill_amount: amount });
      await post(gw, '/sandbox/transaction/complete', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: p.transactionid,
      });
      const r = await post(gw, '/transaction/refund', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: p.transactionid,
        bill_amount: refund,
        bill_currencycode: 'THB',
      });
      assert.equal(r.status, 200, r.raw);
      return { txid: p.transactionid, refundid: r.body.refundid };
    }

    test(
      'refunded_minor can never exceed the captured amount, ' +
        'go negative, or be set on a payment that is not SUCCESS',
      async () => {
        const { txid } = await paidAndRefunded('100', '10');
        await assert.rejects(
          db().updateTable('transactions').set({ refunded_minor: 1_000_001n }).where('id', '=', txid).execute(),
          /check|constraint/i,
        );
        await assert.rejects(
          db().updateTable('transactions').set({ refunded_minor: -1n }).where('id', '=', txid).execute(),
          /check|constraint/i,
        );
        const processing = await startPayment(gw, creds, { bill_amount: '100' });
        await assert.rejects(
          db()
            .updateTable('transactions')
            .set({ refunded_minor: 1n })
            .where('id', '=', processing.transactionid)
            .execute(),
          /check|constraint/i,
        );
        // exactly captured: allowed
        await db().updateTable('transactions').set({ refunded_minor: 1_000_000n }).where('id', '=', txid).execute();
      },
    );

    test('a refund journal entry must match its refund: wrong amount or unknown refund → refused', async () => {
      const { refundid } = await paidAndRefunded('100', '10');
      // The refund's real entry exists; a second entry for another (unknown) refund id, or one with a wrong amount, is
      // refused.
      for (const [key, amount] of [
        [`refund:rfd_unknown`, 100_000n],
        [`refund:${refundid}-x`, 100_000n],
      ] as const) {
        await assert.rejects(
          gw.testStore.engine.transaction((trx) =>
            postEntry(
              new LedgerRepo(gw.testStore.db),
              trx,
              {
                id: `e-${Math.random()}`,
                kind: 'refund',
                merchantId: creds.merchantid,
                transactionId: null,
                idempotencyKey: key,
                reason: 'forged',
                createdAt: Date.now(),
              },
              refundPostings(creds.merchantid, 'THB', amount, 'gateway_clearing'),
            ),
          ),
          /refund entry needs its refund/,
        );
      }
      // A refund row with no entry yet: an entry of the wrong amount is refused, the right one accepted.
      const { txid } = await paidAndRefunded('100', '10');
      const postFor = (id: string, amountMinor: bigint) =>
        gw.testStore.engine.transaction(async (trx) => {
          await new RefundsRepo(gw.testStore.db).insert(trx, {
            id,
            merchantId: creds.merchantid,
            transactionId: txid,
            idempotencyKey: `key:${id}`,
            requestHash: 'h',
            amountMinor: 50_000n,
            currency: 'THB',
            refundedAfterMinor: 150_000n,
            reason: null,
            reference: null,
            processor: 'sandbox',
            processorReference: null,
            transferPaidBy: null,
            createdAt: Date.now(),
          });
          await postEntry(
            new LedgerRepo(gw.testStore.db),
            trx,
            {
              id: `e-${id}`,
              kind: 'refund',
              merchantId: creds.merchantid,
              transactionId: null,
              idempotencyKey: `refund:${id}`,
              reason: 'direct',
              createdAt: Date.now(),
            },
            refundPostings(creds.merchantid, 'THB', amountMinor, 'gateway_clearing'),
          );
        });
      await assert.rejects(postFor('rfd_direct_wrong', 40_000n), /refund entry needs its refund/);
      await postFor('rfd_direct_right', 50_000n);
      const ops = new LedgerOperations({
        store: gw.services.store,
        ledger: gw.services.ledger,
        merchants: gw.services.merchants,
        now: Date.now,
      });
      assert.equal((await ops.verify()).ok, true);
    });

    test('a refund entry credits clearing (processor) or the adjustment (gateway-paid transfer)', async () => {
      const { txid } = await paidAndRefunded('100', '10');
      const ledgerRepo = new LedgerRepo(gw.testStore.db);
      // A refund row of 5 THB (refunded after: 10 + 5), inserted by hand with its entry in one transaction.
      const postFor = (
        id: string,
        row: { processor: string; transferPaidBy: 'gateway' | 'merchant' | null },
        counterpart: 'gateway_clearing' | 'operator_adjustment' | null,
      ) =>
        gw.testStore.engine.transaction(async (trx) => {
          await new RefundsRepo(gw.testStore.db).insert(trx, {
            id,
            merchantId: creds.merchantid,
            transactionId: txid,
            idempotencyKey: `key:${id}`,
            requestHash: 'h',
            amountMinor: 50_000n,
            currency: 'THB',
            refundedAfterMinor: 150_000n,
            reason: null,
            reference: null,
            processor: row.processor,
            processorReference: row.processor === 'bank_transfer' ? `FT-${id}` : null,
            transferPaidBy: row.transferPaidBy,
            createdAt: Date.now(),
          });
          if (counterpart === null) return;
          await postEntry(
            ledgerRepo,
            trx,
            {
              id: `e-${id}`,
              kind: 'refund',
              merchantId: creds.merchantid,
              transactionId: null,
              idempotencyKey: `refund:${id}`,
              reason: 'by hand',
              createdAt: Date.now(),
            },
            refundPostings(creds.merchantid, 'THB', 50_000n, counterpart),
          );
        });
      const gatewayPaid = { processor: 'bank_transfer', transferPaidBy: 'gateway' } as const;
      const merchantPaid = { processor: 'bank_transfer', transferPaidBy: 'merchant' } as const;
      const atProcessor = { processor: 'sandbox', transferPaidBy: null } as const;
      const entryRule = new RegExp(
        String.raw`refund entry needs its refund, must debit the payout by exactly its amount and credit ` +
          String.raw`clearing \(a processor refund\) or operator_adjustment \(a bank transfer the gateway paid\)`,
      );
      await assert.rejects(postFor('rfd_hand_bt_clearing', gatewayPaid, 'gateway_clearing'), entryRule);
      await assert.rejects(postFor('rfd_hand_proc_adjust', atProcessor, 'operator_adjustment'), entryRule);
      await assert.rejects(postFor('rfd_hand_merchant_adjust', merchantPaid, 'operator_adjustment'), entryRule);
      await assert.rejects(postFor('rfd_hand_merchant_clearing', merchantPaid, 'gateway_clearing'), entryRule);
      // A gateway-paid transfer's entry with an extra pair of lines on clearing is refused too: only
      // the payout and operator_adjustment may move.
      await assert.rejects(
        gw.testStore.engine.transaction(async (trx) => {
          await new RefundsRepo(gw.testStore.db).insert(trx, {
            id: 'rfd_hand_extra',
            merchantId: creds.merchantid,
            transactionId: txid,
            idempotencyKey: 'key:rfd_hand_extra',
            requestHash: 'h',
            amountMinor: 50_000n,
            currency: 'THB',
            refundedAfterMinor: 150_000n,
            reason: null,
            reference: null,
            processor: 'bank_transfer',
            processorReference: 'FT-EXTRA',
            transferPaidBy: 'gateway',
            createdAt: Date.now(),
          });
          await postEntry(
            ledgerRepo,
            trx,
            {
              id: 'e-rfd_hand_extra',
              kind: 'refund',
              merchantId: creds.merchantid,
              transactionId: null,
              idempotencyKey: 'refund:rfd_hand_extra',
              reason: 'by hand',
              createdAt: Date.now(),
            },
            [
              ...refundPostings(creds.merchantid, 'THB', 50_000n, 'operator_adjustment'),
              { account: { kind: 'gateway_clearing', merchantId: null, currency: 'THB' }, amountMinor: 1n },
              { account: { kind: 'gateway_fee', merchantId: null, currency: 'THB' }, amountMinor: -1n },
            ],
          );
        }),
        entryRule,
      );
      // The right entries are accepted; a transfer the merchant paid stands without one.
      await postFor('rfd_hand_bt_adjust', gatewayPaid, 'operator_adjustment');
      await postFor('rfd_hand_proc_clearing', atProcessor, 'gateway_clearing');
      await postFor('rfd_hand_merchant_none', merchantPaid, null);
      const ops = new LedgerOperations({
        store: gw.services.store,
        ledger: gw.services.ledger,
        merchants: gw.services.merchants,
        now: Date.now,
      });
      assert.equal((await ops.verify()).ok, true);
    });

    test('who paid is stored exactly for a bank-transfer refund: gateway or merchant, else null', async () => {
      const { txid } = await paidAndRefunded('100', '10');
      const insert = (id: string, processor: string, paidBy: string | null) =>
        db()
          .insertInto('refunds')
          .values({
            id,
            merchant_id: creds.merchantid,
            transaction_id: txid,
            idempotency_key: `key:${id}`,
            request_hash: 'h',
            amount_minor: 10_000n,
            currency: 'THB',
            refunded_after_minor: 110_000n,
            reason: null,
            reference: null,
            processor,
            processor_reference: null,
            transfer_paid_by: paidBy,
            created_at: Date.now(),
          })
          .execute();
      await assert.rejects(insert('rfd_pb_1', 'bank_transfer', null), /check|constraint/i);
      await assert.rejects(insert('rfd_pb_2', 'bank_transfer', 'operator'), /check|constraint/i);
      await assert.rejects(insert('rfd_pb_3', 'sandbox', 'gateway'), /check|constraint/i);
      await insert('rfd_pb_4', 'bank_transfer', 'merchant');
      await insert('rfd_pb_5', 'sandbox', null);
    });

    test('one result notification per payment; one notification per refund', async () => {
      const { txid, refundid } = await paidAndRefunded('100', '10');
      const base = {
        transactionId: txid,
        merchantId: creds.merchantid,
        targetUrl: 'https://merchant.example/notify',
        payload: '{}',
        createdAt: Date.now(),
      };
      await assert.rejects(
        gw.testStore.engine.transaction((trx) => insertOutboxEvent(trx, { ...base, id: 'evt_second_result' })),
        /unique|UNIQUE/,
      );
      await assert.rejects(
        gw.testStore.engine.transaction((trx) =>
          insertOutboxEvent(trx, { ...base, id: 'evt_second_refund', refundId: refundid }),
        ),
        /unique|UNIQUE/,
      );
    });
  });

  describe(`migration 012 over existing data [${dialect}]`, { skip }, () => {
    test('rows written before it survive; refunds then work on the old payment', async () => {
      const database = await createTestDatabase(dialect);
      const store = openStoreEngine(database.databaseUrl);
      try {
        await migrateTo(store.db, '010-outbox-origin');
        const now = Date.now();
        await insertOldMerchant(store.db, now);
        await insertOldPayment(store.db, now, {
          error_code_tag: null,
          error_text: null,
          productdesc: null,
          lang: null,
        });
        await sql`insert into outbox_events (id, transaction_id, merchant_id, target_url, origin, payload, status,
            attempts, next_attempt_at, series, created_at)
          values ('evt_old', 't1', 'm1', 'https://s.example/n', 'https://s.example', '{"old":true}', 'delivered', 1,
            ${now}, 1, ${now})`.execute(store.db);
        await sql`insert into delivery_attempts (event_id, attempt_no, series, started_at, latency_ms, http_status,
            instance_id)
          values ('evt_old', 1, 1, ${now}, 5, 200, 'i')`.execute(store.db);
        await store.transaction(async (trx) => {
          await sql`insert into ledger_accounts (id, kind, merchant_id, currency, balance_minor, posting_count,
              created_at)
            values ('merchant_payout:m1:THB', 'merchant_payout', 'm1', 'THB', 0, 0, ${now}),
              ('gateway_clearing:gateway:THB', 'gateway_clearing', null, 'THB', 0, 0, ${now})`.execute(trx);
          await sql`insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq,
              balance_after_minor, created_at)
            values ('j1', 1, 'merchant_payout:m1:THB', 'THB', 1000000, 1, 1000000, ${now}),
              ('j1', 2, 'gateway_clearing:gateway:THB', 'THB', -1000000, 1, -1000000, ${now})`.execute(trx);
          await sql`insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason,
              created_at)
            values ('j1', 'payment', 'm1', 't1', null, 'payment old-1', ${now})`.execute(trx);
        });

        // 011 (summed system accounts) and 012 run over these rows, in that order; later ones follow.
        assert.deepEqual((await store.migrate()).slice(0, 2), ['011-summed-accounts', '012-refunds']);

        const old = await store.db
          .selectFrom('transactions')
          .selectAll()
          .where('id', '=', 't1')
          .executeTakeFirstOrThrow();
        assert.equal(Number(old.refunded_minor), 0);
        assert.equal(old.return_url_on_failure, null);
        const event = await store.db
          .selectFrom('outbox_events')
          .selectAll()
          .where('id', '=', 'evt_old')
          .executeTakeFirstOrThrow();
        assert.equal(event.payload, '{"old":true}');
        assert.equal(event.refund_id, null);
        assert.equal(event.origin, 'https://s.example');
        assert.equal((await store.db.selectFrom('delivery_attempts').selectAll().execute()).length, 1);
        assert.equal((await store.db.selectFrom('journal_entries').selectAll().execute()).length, 1);
        // The append-only and payment rules still hold after the rebuild.
        await assert.rejects(
          sql`update journal_entries set reason = 'changed' where id = 'j1'`.execute(store.db),
          /append-only/,
        );
        await assert.rejects(sql`delete from journal_entries where id = 'j1'`.execute(store.db), /append-only/);
        // Indexes of migration 010 are still there.
        if (dialect === 'sqlite') {
          const names = (
            await sql<{
              name: string;
            }>`select name from sqlite_schema
              where type = 'index' and tbl_name = 'outbox_events' and sql is not null`.execute(store.db)
          ).rows
            .map((r) => r.name)
            .sort();
          assert.deepEqual(names, [
            'outbox_events_created',
            'outbox_events_merchant_created',
            'outbox_events_refund',
            'outbox_events_result_per_transaction',
            'outbox_events_status_created',
            'outbox_pending_origin',
          ]);
          const fk = (await sql`pragma foreign_keys`.execute(store.db)).rows[0] as Record<string, number>;
          assert.equal(Object.values(fk)[0], 1, 'foreign keys are on again');
        }
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });

  describe(`migration 017 over existing refunds [${dialect}]`, { skip }, () => {
    test('a bank-transfer refund recorded before it is taken as paid by the gateway; others stay null', async () => {
      const database = await createTestDatabase(dialect);
      const store = openStoreEngine(database.databaseUrl);
      try {
        await migrateTo(store.db, '016-payer-check'); // the schema just before 017
        const now = Date.now();
        await insertOldMerchant(store.db, now);
        await insertOldPayment(store.db, now, { refunded_minor: 300_000 });
        const refund = (id: string, processor: string, after: number) => ({
          id,
          merchant_id: 'm1',
          transaction_id: 't1',
          idempotency_key: `key:${id}`,
          request_hash: 'h',
          amount_minor: 150_000,
          currency: 'THB',
          refunded_after_minor: after,
          processor,
          processor_reference: processor === 'bank_transfer' ? 'FT-OLD' : null,
          created_at: now,
        });
        for (const row of [
          refund('rfd_old_sandbox', 'sandbox', 150_000),
          refund('rfd_old_bt', 'bank_transfer', 300_000),
        ])
          await sql`insert into refunds (${sql.join(Object.keys(row).map((k) => sql.ref(k)))})
            values (${sql.join(Object.values(row))})`.execute(store.db);

        assert.equal((await store.migrate())[0], '017-transfer-refund-ledger', 'the next migration is 017');

        const rows = await store.db.selectFrom('refunds').select(['id', 'transfer_paid_by']).orderBy('id').execute();
        assert.deepEqual(
          rows.map((r) => ({ ...r })),
          [
            { id: 'rfd_old_bt', transfer_paid_by: 'gateway' },
            { id: 'rfd_old_sandbox', transfer_paid_by: null },
          ],
        );
        // The pairing CHECK now holds on the table (the SQLite rebuild included).
        await assert.rejects(
          sql`update refunds set transfer_paid_by = null where id = 'rfd_old_bt'`.execute(store.db),
          /check|constraint/i,
        );
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });
}
