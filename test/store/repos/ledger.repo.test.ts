// The ledger repository and the database's own guards (migration 004), on both stores:
// the database refuses whatever would break an invariant, even when the code is bypassed.
import { LedgerRepo } from '../../../src/store/repos/ledger.repo.ts';
import { postEntry } from '../../support/ledger-post.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post as httpPost,
  startTestGateway,
  type TestGateway,
} from '../../support/test-gateway.ts';
import {
  adjustmentPostings,
  accountId,
  LedgerRefusal,
  paymentPostings,
  payoutAccount,
  type AccountKind,
  type PostingLine,
} from '../../../src/domain/ledger.ts';
import { uuidv7 } from '../../../src/domain/ids.ts';
import type { JournalEntry } from '../../../src/domain/ledger.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`ledger repository and database guards [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let merchant: string;
    let other: string;
    let keyNo = 0;
    const credit = (amountMinor: bigint, m = merchant): { entry: JournalEntry; lines: PostingLine[] } => ({
      entry: {
        id: uuidv7(),
        kind: amountMinor > 0n ? 'credit' : 'debit',
        merchantId: m,
        transactionId: null,
        idempotencyKey: `repo-${++keyNo}`,
        reason: 'test',
        createdAt: gw.clock.now,
      },
      lines: adjustmentPostings(m, 'THB', amountMinor),
    });
    const post = (e: { entry: JournalEntry; lines: PostingLine[] }) =>
      gw.testStore.engine.transaction((trx) => postEntry(new LedgerRepo(gw.testStore.db), trx, e.entry, e.lines));
    const assertLedgerSound = async () => {
      assert.deepEqual(await gw.services.ledger.unbalancedEntries(), []);
      assert.deepEqual(await gw.services.ledger.malformedEntries(), []);
      assert.deepEqual(await gw.services.ledger.balanceMismatches(), []);
      assert.deepEqual(await gw.services.ledger.negativePayoutAccounts(), []);
    };

    before(async () => {
      gw = await startTestGateway(dialect);
      merchant = (await addMerchant(gw)).merchantid;
      other = (await addMerchant(gw)).merchantid;
    });
    after(() => gw?.close());

    test('a posting moves the balances and records each account chain (sequence and running balance)', async () => {
      const planned = await post(credit(1_000_000n));
      assert.deepEqual(
        planned.map((p) => [p.accountId, p.amountMinor, p.accountSeq, p.balanceAfterMinor]),
        [
          [accountId(payoutAccount(merchant, 'THB')), 1_000_000n, 1n, 1_000_000n],
          [`operator_adjustment:gateway:THB`, -1_000_000n, 1n, -1_000_000n],
        ],
      );
      await post(credit(-250_000n));
      assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'THB')), 750_000n);
      const [account] = (await gw.services.ledger.accountsOf(merchant)).filter((a) => a.currency === 'THB');
      assert.equal(account?.postingCount, 2n);
      await assertLedgerSound();
    });

    test('balances beyond 2^53 minor units are read exactly (64-bit, never through a float)', async () => {
      const big = 2n ** 60n + 7n;
      await post(credit(big, other));
      assert.equal(await gw.services.ledger.balance(payoutAccount(other, 'THB')), big);
      await post(credit(-big, other));
      assert.equal(await gw.services.ledger.balance(payoutAccount(other, 'THB')), 0n);
    });

    test('an overdraft is refused by the code before anything is written', async () => {
      const before = await gw.services.ledger.countEntries();
      const balance = await gw.services.ledger.balance(payoutAccount(merchant, 'THB'));
      await assert.rejects(
        post(credit(-(balance + 1n))),
        (e) => e instanceof LedgerRefusal && e.reason === 'OVERDRAFT',
      );
      assert.equal(await gw.services.ledger.countEntries(), before);
      assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'THB')), balance);
    });

    test(
      'the same idempotency key cannot post twice (UNIQUE), ' + 'and the failed attempt leaves nothing behind',
      async () => {
        const first = credit(10_000n);
        await post(first);
        const balance = await gw.services.ledger.balance(payoutAccount(merchant, 'THB'));
        const again = credit(10_000n);
        again.entry.idempotencyKey = first.entry.idempotencyKey;
        await assert.rejects(post(again), /unique|duplicate/i);
        assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'THB')), balance);
        await assertLedgerSound();
      },
    );

    // Below: the code is bypassed on purpose, to show the database refuses on its own.
    const db = () => gw.testStore.db;

    test('DB: a direct update of a stored balance is refused', async () => {
      const id = accountId(payoutAccount(merchant, 'THB'));
      await assert.rejects(
        db().updateTable('ledger_accounts').set({ balance_minor: 999n }).where('id', '=', id).execute(),
        /balance moves only by its next posting/,
      );
      await assert.rejects(
        db()
          .updateTable('ledger_accounts')
          .set({ balance_minor: 999n, posting_count: sql`posting_count + 1` })
          .where('id', '=', id)
          .execute(),
        /balance moves only by its next posting/,
      );
      await assertLedgerSound();
    });

    test('DB: an account cannot be created with money in it', async () => {
      await assert.rejects(
        db()
          .insertInto('ledger_accounts')
          .values({
            id: 'merchant_payout:x:THB',
            kind: 'merchant_payout',
            merchant_id: merchant,
            currency: 'USD',
            balance_minor: 5n,
            posting_count: 0n,
            created_at: 0,
          })
          .execute(),
        /starts at zero/,
      );
    });

    test('DB: postings and entries are append-only', async () => {
      await assert.rejects(db().updateTable('postings').set({ amount_minor: 1n }).execute(), /append-only/);
      await assert.rejects(db().deleteFrom('postings').execute(), /append-only/);
      await assert.rejects(db().updateTable('journal_entries').set({ reason: 'x' }).execute(), /append-only/);
      await assert.rejects(db().deleteFrom('journal_entries').execute(), /append-only/);
    });

    /** Writes postings and an entry by hand, with correct chains, so only the rule under test is broken. */
    async function rawEntry(
      lines: Array<{ account: string; currency: string; amount: bigint }>,
      entry: Partial<{
        kind: 'payment' | 'credit' | 'debit';
        transactionId: string | null;
        key: string | null;
        merchantId: string;
      }> = {},
      writeEntry = true,
    ) {
      const id = uuidv7();
      await gw.testStore.engine.transaction(async (trx) => {
        let lineNo = 0;
        for (const l of lines) {
          const [kind, owner, currency] = l.account.split(':') as [AccountKind, string, string];
          await new LedgerRepo(gw.testStore.db).ensureAccount(
            trx,
            { kind, merchantId: owner === 'gateway' ? null : owner, currency },
            0,
          );
          const a = await trx
            .selectFrom('ledger_accounts')
            .select(['balance_minor', 'posting_count'])
            .where('id', '=', l.account)
            .executeTakeFirstOrThrow();
          await trx
            .insertInto('postings')
            .values({
              entry_id: id,
              line_no: ++lineNo,
              account_id: l.account,
              currency: l.currency,
              amount_minor: l.amount,
              account_seq: BigInt(a.posting_count) + 1n,
              balance_after_minor: BigInt(a.balance_minor) + l.amount,
              created_at: 0,
            })
            .execute();
        }
        if (writeEntry) {
          await trx
            .insertInto('journal_entries')
            .values({
              id,
              kind: entry.kind ?? 'credit',
              merchant_id: entry.merchantId ?? merchant,
              transaction_id: entry.transactionId ?? null,
              idempotency_key: entry.key === undefined ? `raw-${id}` : entry.key,
              reason: 'raw',
              created_at: 0,
            })
            .execute();
        }
      });
    }
    const payout = () => accountId(payoutAccount(merchant, 'THB'));
    const adjustment = 'operator_adjustment:gateway:THB';

    test('DB: an entry that does not sum to zero is refused, and nothing of it stays', async () => {
      const balance = await gw.services.ledger.balance(payoutAccount(merchant, 'THB'));
      await assert.rejects(
        rawEntry([
          { account: payout(), currency: 'THB', amount: 100n },
          { account: adjustment, currency: 'THB', amount: -99n },
        ]),
        /sum to zero/,
      );
      await assert.rejects(rawEntry([{ account: payout(), currency: 'THB', amount: 100n }]), /at least two postings/);
      assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'THB')), balance);
      await assertLedgerSound();
    });

    test('DB: postings without their entry cannot be committed (deferred foreign key)', async () => {
      const count = await gw.services.ledger.countEntries();
      await assert.rejects(
        rawEntry(
          [
            { account: payout(), currency: 'THB', amount: 100n },
            { account: adjustment, currency: 'THB', amount: -100n },
          ],
          {},
          false,
        ),
        /foreign key/i,
      );
      assert.equal(await gw.services.ledger.countEntries(), count);
      await assertLedgerSound();
    });

    test('DB: a posting that does not continue its account chain is refused', async () => {
      const at = await db()
        .selectFrom('ledger_accounts')
        .select(['posting_count', 'balance_minor'])
        .where('id', '=', payout())
        .executeTakeFirstOrThrow();
      const count = BigInt(at.posting_count);
      const balance = BigInt(at.balance_minor);
      const bogus = (seq: bigint, after: bigint) =>
        gw.testStore.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values({
              entry_id: 'bogus',
              line_no: 1,
              account_id: payout(),
              currency: 'THB',
              amount_minor: 5n,
              account_seq: seq,
              balance_after_minor: after,
              created_at: 0,
            })
            .execute();
        });
      await assert.rejects(bogus(count + 2n, balance + 5n), /continue its account/, 'skips a sequence number');
      await assert.rejects(bogus(count + 1n, balance + 6n), /continue its account/, 'wrong running balance');
      // A sequence number already taken: the UNIQUE (account, sequence) refuses it as the row is written.
      await assert.rejects(bogus(count, balance + 5n), /continue its account|UNIQUE|duplicate key/i, 'repeats one');
    });

    test('DB: a payout balance below zero fails the CHECK even when the code is bypassed', async () => {
      const balance = await gw.services.ledger.balance(payoutAccount(merchant, 'THB'));
      await assert.rejects(
        rawEntry([
          { account: payout(), currency: 'THB', amount: -(balance + 1n) },
          { account: adjustment, currency: 'THB', amount: balance + 1n },
        ]),
        /payout_not_negative|CHECK/i,
      );
      assert.equal(await gw.services.ledger.balance(payoutAccount(merchant, 'THB')), balance);
    });

    test("DB: an entry may not move another merchant's payout account", async () => {
      await assert.rejects(
        rawEntry(
          [
            { account: payout(), currency: 'THB', amount: 100n },
            { account: adjustment, currency: 'THB', amount: -100n },
          ],
          { merchantId: other },
        ),
        /merchant of its entry/,
      );
    });

    test(
      'DB: a payment entry needs its SUCCESS transaction and must ' + 'clear exactly its amount; it posts once',
      async () => {
        const creds = await addMerchant(gw);
        const init = await httpPost(
          gw,
          '/transaction/s2s',
          initiationBody(creds, { trackid: 'repo-pay-1', bill_amount: '100' }),
        );
        const txId: string = init.body.transactionid;
        const m = creds.merchantid;
        const lines = (amount: bigint) =>
          paymentPostings(m, 'THB', amount, 0n).map((l) => ({
            account: accountId(l.account),
            currency: 'THB',
            amount: l.amountMinor,
          }));
        const asPayment = { kind: 'payment' as const, key: null, transactionId: txId, merchantId: m };
        await assert.rejects(rawEntry(lines(1_000_000n), asPayment), /SUCCESS transaction/, 'still PROCESSING');
        // SUCCESS by hand (no entry yet): an entry clearing another amount, or for another merchant, is refused.
        await db().updateTable('transactions').set({ status: 'SUCCESS' }).where('id', '=', txId).execute();
        await assert.rejects(rawEntry(lines(999_999n), asPayment), /SUCCESS transaction/, 'wrong amount');
        await assert.rejects(
          rawEntry(lines(1_000_000n), { ...asPayment, merchantId: merchant }),
          /SUCCESS transaction|merchant of its entry/,
          'another merchant',
        );
        await db().updateTable('transactions').set({ status: 'PROCESSING' }).where('id', '=', txId).execute();
        const done = await httpPost(gw, '/sandbox/transaction/complete', {
          merchantid: m,
          password: creds.password,
          transactionid: txId,
        });
        assert.equal(done.body.responsecode, '0');
        assert.equal(await gw.services.ledger.balance(payoutAccount(m, 'THB')), 1_000_000n);
        // A second entry for the transaction: the UNIQUE transaction reference refuses it as the row is
        // written, before the statement's check (docs/ledger.md "How the database checks run").
        await assert.rejects(rawEntry(lines(999_999n), asPayment), /SUCCESS transaction|unique|duplicate/i);
        // The right amount a second time: the UNIQUE transaction reference refuses it.
        await assert.rejects(
          gw.testStore.engine.transaction((trx) =>
            postEntry(
              new LedgerRepo(gw.testStore.db),
              trx,
              {
                id: uuidv7(),
                kind: 'payment',
                merchantId: m,
                transactionId: txId,
                idempotencyKey: null,
                reason: 'again',
                createdAt: 0,
              },
              paymentPostings(m, 'THB', 1_000_000n, 0n),
            ),
          ),
          /unique|duplicate/i,
        );
        assert.equal(await gw.services.ledger.balance(payoutAccount(m, 'THB')), 1_000_000n);
        assert.equal((await gw.services.ledger.findEntryByTransaction(txId))?.postings.length, 2);
        await assertLedgerSound();
      },
    );

    test(
      'DB: an entry kind carries the right reference (payment: ' +
        'transaction; credit/debit: idempotency key and reason)',
      async () => {
        await assert.rejects(
          rawEntry(
            [
              { account: payout(), currency: 'THB', amount: 100n },
              { account: adjustment, currency: 'THB', amount: -100n },
            ],
            { key: null },
          ),
          /CHECK|reference_by_kind/i,
        );
      },
    );
  });
}
