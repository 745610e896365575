// Summed accounts (migration 011), on both stores: the gateway's fee and clearing accounts take
// postings without a running balance, so payments never lock a shared row; every other account
// keeps its chain; and a ledger written before the migration (fee and clearing chained) keeps its
// balances and stays sound across it.
import { postEntry } from '../support/ledger-post.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { migrateTo } from '../../src/store/migrations/index.ts';
import { LedgerRepo } from '../../src/store/repos/ledger.repo.ts';
import { LedgerReadsRepo } from '../../src/store/repos/ledger-reads.repo.ts';
import { uuidv7 } from '../../src/domain/ids.ts';
import type { AccountRef, PostingLine } from '../../src/domain/ledger.ts';

const clearing: AccountRef = { kind: 'gateway_clearing', merchantId: null, currency: 'THB' };
const fee: AccountRef = { kind: 'gateway_fee', merchantId: null, currency: 'THB' };

for (const { dialect, skip } of await testDialects()) {
  describe(`summed fee and clearing accounts [${dialect}]`, { skip }, () => {
    let store: StoreEngine;
    let drop: () => Promise<void>;
    let ledger: LedgerRepo;
    let reads: LedgerReadsRepo;
    const merchant = 'M-summed';
    const payout: AccountRef = { kind: 'merchant_payout', merchantId: merchant, currency: 'THB' };
    let keyNo = 0;
    const entry = () => ({
      id: uuidv7(),
      kind: 'credit' as const,
      merchantId: merchant,
      transactionId: null,
      idempotencyKey: `summed-${++keyNo}`,
      reason: 'test',
      createdAt: 0,
    });
    const rawPosting = (
      entryId: string,
      lineNo: number,
      accountId: string,
      amount: bigint,
      seq: bigint | null,
      after: bigint | null,
    ) =>
      store.db.insertInto('postings').values({
        entry_id: entryId,
        line_no: lineNo,
        account_id: accountId,
        currency: 'THB',
        amount_minor: amount,
        account_seq: seq,
        balance_after_minor: after,
        created_at: 0,
      });
    const verify = async () => {
      assert.deepEqual(await reads.unbalancedEntries(), []);
      assert.deepEqual(await reads.malformedEntries(), []);
      assert.deepEqual(await reads.balanceMismatches(), []);
      assert.deepEqual(await reads.negativePayoutAccounts(), []);
    };

    before(async () => {
      const database = await createTestDatabase(dialect);
      drop = database.drop;
      store = openStoreEngine(database.databaseUrl);
      // The schema as it was before summed accounts: every posting continues its account's chain.
      await migrateTo(store.db, '010-outbox-origin');
      await store.db
        .insertInto('merchants')
        .values({
          id: merchant,
          name: 'summed',
          password_hash: 'x',
          webhook_secret_enc: 'x',
          payout_currency: 'THB',
          payout_account: '1234',
          fee_rate_ppm: 0n,
          status: 'active',
          created_at: 0,
          updated_at: 0,
        })
        .execute();
      // Two entries the old way: payout +, fee + and clearing − with running balances on all three.
      await store.transaction(async (trx) => {
        const now = 0;
        for (const ref of [payout, fee, clearing]) {
          const id = `${ref.kind}:${ref.merchantId ?? 'gateway'}:THB`;
          await trx
            .insertInto('ledger_accounts')
            .values({
              id,
              kind: ref.kind,
              merchant_id: ref.merchantId,
              currency: 'THB',
              balance_minor: 0n,
              posting_count: 0n,
              created_at: now,
            })
            .execute();
        }
        for (const [n, amount] of [
          [1n, 10_000n],
          [2n, 30_000n],
        ] as const) {
          const id = uuidv7();
          const before = n === 1n ? 0n : 10_000n;
          await trx
            .insertInto('postings')
            .values({
              entry_id: id,
              line_no: 1,
              account_id: `merchant_payout:${merchant}:THB`,
              currency: 'THB',
              amount_minor: amount - 100n,
              account_seq: n,
              balance_after_minor: before - (n === 1n ? 0n : 100n) + amount - 100n,
              created_at: now,
            })
            .execute();
          await trx
            .insertInto('postings')
            .values({
              entry_id: id,
              line_no: 2,
              account_id: 'gateway_fee:gateway:THB',
              currency: 'THB',
              amount_minor: 100n,
              account_seq: n,
              balance_after_minor: 100n * n,
              created_at: now,
            })
            .execute();
          await trx
            .insertInto('postings')
            .values({
              entry_id: id,
              line_no: 3,
              account_id: 'gateway_clearing:gateway:THB',
              currency: 'THB',
              amount_minor: -amount,
              account_seq: n,
              balance_after_minor: -(before + amount),
              created_at: now,
            })
            .execute();
          await trx
            .insertInto('journal_entries')
            .values({
              id,
              kind: 'credit',
              merchant_id: merchant,
              transaction_id: null,
              idempotency_key: `old-${n}`,
              reason: 'before 011',
              created_at: now,
            })
            .execute();
        }
      });
      await migrateTo(store.db);
      ledger = new LedgerRepo(store.db);
      reads = new LedgerReadsRepo(store.db);
    });
    after(async () => {
      await store?.close();
      await drop?.();
    });

    test('balances written before migration 011 are kept, and the ledger is sound across it', async () => {
      assert.equal(await reads.balance(payout), 39_800n);
      assert.equal(await reads.balance(fee), 200n);
      assert.equal(await reads.balance(clearing), -40_000n);
      await verify();
    });

    test(
      'a fee or clearing posting carries no running balance and leaves ' +
        'the account row alone; the balance is the sum of postings',
      async () => {
        const rowBefore = await store.db
          .selectFrom('ledger_accounts')
          .select([sql<string>`cast(balance_minor as text)`.as('b'), sql<string>`cast(posting_count as text)`.as('c')])
          .where('id', '=', 'gateway_clearing:gateway:THB')
          .executeTakeFirstOrThrow();
        const lines: PostingLine[] = [
          { account: payout, amountMinor: 4_900n },
          { account: fee, amountMinor: 100n },
          { account: clearing, amountMinor: -5_000n },
        ];
        const planned = await store.transaction((trx) => postEntry(ledger, trx, entry(), lines));
        assert.deepEqual(
          planned.map((p) => [p.kind, p.accountSeq, p.balanceAfterMinor]),
          [
            ['merchant_payout', 3n, 44_700n],
            ['gateway_fee', null, null],
            ['gateway_clearing', null, null],
          ],
        );
        const rowAfter = await store.db
          .selectFrom('ledger_accounts')
          .select([sql<string>`cast(balance_minor as text)`.as('b'), sql<string>`cast(posting_count as text)`.as('c')])
          .where('id', '=', 'gateway_clearing:gateway:THB')
          .executeTakeFirstOrThrow();
        assert.deepEqual(rowAfter, rowBefore, 'the clearing row did not move');
        assert.equal(await reads.balance(clearing), -45_000n);
        assert.equal(await reads.balance(fee), 300n);
        assert.equal(await reads.balance(payout), 44_700n);
        const gateway = await reads.accountsOf(null);
        assert.deepEqual(
          gateway.map((a) => [a.id, a.balanceMinor, a.postingCount]),
          [
            ['gateway_clearing:gateway:THB', -45_000n, 3n],
            ['gateway_fee:gateway:THB', 300n, 3n],
          ],
        );
        await verify();
      },
    );

    test('concurrent payments of different merchants and one merchant all post, and the sums stay exact', async () => {
      const others = ['M-s1', 'M-s2', 'M-s3'];
      for (const id of others) {
        await store.db
          .insertInto('merchants')
          .values({
            id,
            name: id,
            password_hash: 'x',
            webhook_secret_enc: 'x',
            payout_currency: 'THB',
            payout_account: '1',
            fee_rate_ppm: 0n,
            status: 'active',
            created_at: 0,
            updated_at: 0,
          })
          .execute();
      }
      const clearingBefore = await reads.balance(clearing);
      const work = [...others, ...others, merchant, merchant].map((m, i) =>
        store.transaction((trx) =>
          postEntry(ledger, trx, { ...entry(), merchantId: m }, [
            { account: { kind: 'merchant_payout', merchantId: m, currency: 'THB' }, amountMinor: 1_000n + BigInt(i) },
            { account: clearing, amountMinor: -(1_000n + BigInt(i)) },
          ]),
        ),
      );
      await Promise.all(work);
      const expected = [...others, ...others, merchant, merchant].reduce((sum, _m, i) => sum + 1_000n + BigInt(i), 0n);
      assert.equal(await reads.balance(clearing), clearingBefore - expected);
      assert.equal(
        await reads.balance({ kind: 'merchant_payout', merchantId: 'M-s1', currency: 'THB' }),
        1_000n + 1_003n,
      );
      await verify();
    });

    test('DB: a payout or adjustment posting without a running balance is refused', async () => {
      await assert.rejects(
        store.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values({
              entry_id: 'no-chain',
              line_no: 1,
              account_id: `merchant_payout:${merchant}:THB`,
              currency: 'THB',
              amount_minor: -1n,
              account_seq: null,
              balance_after_minor: null,
              created_at: 0,
            })
            .execute();
        }),
        /continue its account/,
      );
      await assert.rejects(
        store.transaction(async (trx) => {
          await ledger.ensureAccount(trx, { kind: 'operator_adjustment', merchantId: null, currency: 'THB' }, 0);
          await trx
            .insertInto('postings')
            .values({
              entry_id: 'no-chain-2',
              line_no: 1,
              account_id: 'operator_adjustment:gateway:THB',
              currency: 'THB',
              amount_minor: 1n,
              account_seq: null,
              balance_after_minor: null,
              created_at: 0,
            })
            .execute();
        }),
        /continue its account/,
      );
    });

    test('DB: a posting with half a chain (sequence without balance or the reverse) is refused', async () => {
      await assert.rejects(
        rawPosting('half', 1, 'gateway_clearing:gateway:THB', -1n, 4n, null).execute(),
        /chain_pair|CHECK|continue its account/i,
      );
      await assert.rejects(
        rawPosting('half', 1, 'gateway_clearing:gateway:THB', -1n, null, -1n).execute(),
        /chain_pair|CHECK|continue its account/i,
      );
    });

    test('DB: a posting that carries a chain on a summed account must still continue it exactly', async () => {
      // The chain is still enforced exactly when a posting carries one.
      await assert.rejects(
        rawPosting('bad-chain', 1, 'gateway_fee:gateway:THB', 1n, 9n, 301n).execute(),
        /continue its account/,
      );
      await verify();
    });
  });
}
