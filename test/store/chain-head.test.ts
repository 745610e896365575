// Several chained postings to one account in ONE statement (migration 014), on both stores: the
// chain is checked against its head even when that head is a posting of the same statement (on
// PostgreSQL the row moves only when the statement's AFTER triggers run), and a posting that
// does not continue it exactly is still refused.
import { postEntry } from '../support/ledger-post.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { createTestStore, type TestStore } from '../support/test-store.ts';
import { LedgerRepo } from '../../src/store/repos/ledger.repo.ts';
import { LedgerReadsRepo } from '../../src/store/repos/ledger-reads.repo.ts';
import { uuidv7 } from '../../src/domain/ids.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`chained postings of one statement [${dialect}]`, { skip }, () => {
    let t: TestStore;
    let ledger: LedgerRepo;
    let reads: LedgerReadsRepo;
    const merchant = 'M-chain-head';
    const payoutId = `merchant_payout:${merchant}:THB`;
    const adjustmentId = 'operator_adjustment:gateway:THB';
    let keyNo = 0;
    const posting = (
      entryId: string,
      lineNo: number,
      accountId: string,
      amount: bigint,
      seq: bigint,
      after: bigint,
    ) => ({
      entry_id: entryId,
      line_no: lineNo,
      account_id: accountId,
      currency: 'THB',
      amount_minor: amount,
      account_seq: seq,
      balance_after_minor: after,
      created_at: 0,
    });
    const entryRow = (id: string) => ({
      id,
      kind: 'credit' as const,
      merchant_id: merchant,
      transaction_id: null,
      idempotency_key: `chain-head-${++keyNo}`,
      reason: 'test',
      created_at: 0,
    });
    const row = async () => ({
      ...(await t.db
        .selectFrom('ledger_accounts')
        .select([
          sql<string>`cast(balance_minor as text)`.as('balance'),
          sql<string>`cast(posting_count as text)`.as('count'),
        ])
        .where('id', '=', payoutId)
        .executeTakeFirstOrThrow()),
    });

    before(async () => {
      t = await createTestStore(dialect);
      ledger = new LedgerRepo(t.db);
      reads = new LedgerReadsRepo(t.db);
      await t.db
        .insertInto('merchants')
        .values({
          id: merchant,
          name: 'chain head',
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
      await t.engine.transaction(async (trx) => {
        await ledger.ensureAccount(trx, { kind: 'merchant_payout', merchantId: merchant, currency: 'THB' }, 0);
        await ledger.ensureAccount(trx, { kind: 'operator_adjustment', merchantId: null, currency: 'THB' }, 0);
      });
    });
    after(() => t?.cleanup());

    test(
      'three postings to one payout account in one ' + 'INSERT continue its chain; the row ends at the last',
      async () => {
        const e = uuidv7();
        await t.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values([
              posting(e, 1, payoutId, 100n, 1n, 100n),
              posting(e, 2, payoutId, 250n, 2n, 350n),
              posting(e, 3, payoutId, 50n, 3n, 400n),
              posting(e, 4, adjustmentId, -400n, 1n, -400n),
            ])
            .execute();
          await trx.insertInto('journal_entries').values(entryRow(e)).execute();
        });
        assert.deepEqual(await row(), { balance: '400', count: '3' });
        assert.deepEqual(await reads.balanceMismatches(), []);
        assert.deepEqual(await reads.unbalancedEntries(), []);
      },
    );

    test(
      'a posting of the same statement that skips, ' +
        'repeats or misstates the chain is refused, and nothing is written',
      async () => {
        const bad: Array<[bigint, bigint]> = [
          [6n, 510n], // skips sequence 5
          [4n, 510n], // repeats sequence 4
          [5n, 999n], // wrong running balance
        ];
        for (const [seq, after] of bad) {
          const e = uuidv7();
          await assert.rejects(
            t.engine.transaction(async (trx) => {
              await trx
                .insertInto('postings')
                .values([
                  posting(e, 1, payoutId, 10n, 4n, 410n),
                  posting(e, 2, payoutId, 100n, seq, after),
                  posting(e, 3, adjustmentId, -110n, 2n, -510n),
                ])
                .execute();
              await trx.insertInto('journal_entries').values(entryRow(e)).execute();
            }),
            /continue its account|UNIQUE|duplicate key/i,
          );
        }
        assert.deepEqual(await row(), { balance: '400', count: '3' });
        assert.deepEqual(await reads.balanceMismatches(), []);
      },
    );

    test('LedgerRepo.post with two lines on one chained account (one statement) continues the chain', async () => {
      const payout = { kind: 'merchant_payout' as const, merchantId: merchant, currency: 'THB' };
      const planned = await t.engine.transaction((trx) =>
        postEntry(
          ledger,
          trx,
          {
            id: uuidv7(),
            kind: 'credit',
            merchantId: merchant,
            transactionId: null,
            idempotencyKey: `chain-head-${++keyNo}`,
            reason: 'two lines',
            createdAt: 0,
          },
          [
            { account: payout, amountMinor: 30n },
            { account: payout, amountMinor: 20n },
            { account: { kind: 'operator_adjustment', merchantId: null, currency: 'THB' }, amountMinor: -50n },
          ],
        ),
      );
      assert.deepEqual(
        planned.map((p) => [p.accountSeq, p.balanceAfterMinor]),
        [
          [4n, 430n],
          [5n, 450n],
          [2n, -450n],
        ],
      );
      assert.deepEqual(await row(), { balance: '450', count: '5' });
      assert.deepEqual(await reads.balanceMismatches(), []);
    });

    test('DB: the account row moves only forward, and only to its chain head', async () => {
      const move = (count: bigint, balance: bigint) =>
        t.db
          .updateTable('ledger_accounts')
          .set({ posting_count: count, balance_minor: balance })
          .where('id', '=', payoutId)
          .execute();
      await assert.rejects(move(4n, 430n), /moves only by its next posting/, 'back to an earlier posting');
      await assert.rejects(move(6n, 450n), /moves only by its next posting/, 'beyond the newest posting');
      await assert.rejects(move(5n, 451n), /moves only by its next posting/, 'a balance no posting carries');
      assert.deepEqual(await row(), { balance: '450', count: '5' });
    });
  });
}
