// The ledger's database checks run once per statement on PostgreSQL (migration 018; docs/ledger.md
// "How the database checks run"), once per row on SQLite. These are the cases where a check over a
// whole statement could let something through that a check per row would not: several entries in
// one statement, a broken chain in the middle of a multi-row insert, an entry whose postings come
// in several statements, postings added to an entry already written. Both stores, code bypassed.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import { createTestStore, type TestStore } from '../support/test-store.ts';
import { LedgerRepo } from '../../src/store/repos/ledger.repo.ts';
import { LedgerReadsRepo } from '../../src/store/repos/ledger-reads.repo.ts';
import { uuidv7 } from '../../src/domain/ids.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`ledger checks over whole statements [${dialect}]`, { skip }, () => {
    let t: TestStore;
    let reads: LedgerReadsRepo;
    const merchant = 'M-stmt-checks';
    const other = 'M-stmt-other';
    const payout = `merchant_payout:${merchant}:THB`;
    const adjustment = 'operator_adjustment:gateway:THB';
    let keyNo = 0;
    /** Where each chained account stands; the tests write chains by hand from it. */
    let head: Map<string, { seq: bigint; balance: bigint }>;

    const line = (entryId: string, lineNo: number, account: string, amount: bigint, chain = true) => {
      const at = head.get(account) ?? { seq: 0n, balance: 0n };
      const next = { seq: at.seq + 1n, balance: at.balance + amount };
      head.set(account, next);
      return {
        entry_id: entryId,
        line_no: lineNo,
        account_id: account,
        currency: 'THB',
        amount_minor: amount,
        account_seq: chain ? next.seq : null,
        balance_after_minor: chain ? next.balance : null,
        created_at: 0,
      };
    };
    const entry = (id: string, merchantId = merchant) => ({
      id,
      kind: 'credit' as const,
      merchant_id: merchantId,
      transaction_id: null,
      idempotency_key: `stmt-${++keyNo}`,
      reason: 'test',
      created_at: 0,
    });
    const rows = async () => {
      const accounts = await t.db
        .selectFrom('ledger_accounts')
        .select([
          'id',
          sql<string>`cast(balance_minor as text)`.as('b'),
          sql<string>`cast(posting_count as text)`.as('n'),
        ])
        .where('id', 'in', [payout, adjustment])
        .orderBy('id')
        .execute();
      const entries = await t.db
        .selectFrom('journal_entries')
        .select((e) => e.fn.countAll<string>().as('n'))
        .execute();
      const postings = await t.db
        .selectFrom('postings')
        .select((e) => e.fn.countAll<string>().as('n'))
        .execute();
      return { accounts, entries: Number(entries[0]!.n), postings: Number(postings[0]!.n) };
    };
    const sound = async () => {
      assert.deepEqual(await reads.unbalancedEntries(), []);
      assert.deepEqual(await reads.malformedEntries(), []);
      assert.deepEqual(await reads.balanceMismatches(), []);
    };
    /** Reloads the chain heads from the rows (after a refused statement, the test's guesses are void). */
    const reloadHeads = async () => {
      head = new Map();
      for (const a of await t.db
        .selectFrom('ledger_accounts')
        .select([
          'id',
          sql<string>`cast(balance_minor as text)`.as('b'),
          sql<string>`cast(posting_count as text)`.as('n'),
        ])
        .execute())
        head.set(a.id, { seq: BigInt(a.n), balance: BigInt(a.b) });
    };

    before(async () => {
      t = await createTestStore(dialect);
      reads = new LedgerReadsRepo(t.db);
      for (const id of [merchant, other]) {
        await t.db
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
      const ledger = new LedgerRepo(t.db);
      await t.engine.transaction(async (trx) => {
        for (const m of [merchant, other])
          await ledger.ensureAccount(trx, { kind: 'merchant_payout', merchantId: m, currency: 'THB' }, 0);
        await ledger.ensureAccount(trx, { kind: 'operator_adjustment', merchantId: null, currency: 'THB' }, 0);
        await ledger.ensureAccount(trx, { kind: 'gateway_fee', merchantId: null, currency: 'THB' }, 0);
      });
    });
    beforeEach(reloadHeads);
    after(() => t?.cleanup());

    test('two entries in one statement: one unbalanced refuses the statement, nothing of either stays', async () => {
      const before = await rows();
      const [a, b] = [uuidv7(), uuidv7()];
      await assert.rejects(
        t.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values([
              line(a, 1, payout, 100n),
              line(a, 2, adjustment, -100n),
              line(b, 1, payout, 50n),
              line(b, 2, adjustment, -49n),
            ])
            .execute();
          await trx
            .insertInto('journal_entries')
            .values([entry(a), entry(b)])
            .execute();
        }),
        /sum to zero/,
      );
      assert.deepEqual(await rows(), before);
      await sound();
    });

    test('two entries in one statement: one with a single line, or moving another merchant, is refused', async () => {
      const before = await rows();
      for (const [breakIt, message] of [
        [(b: string) => [line(b, 1, 'gateway_fee:gateway:THB', 5n, false)], /at least two postings/],
        [
          (b: string) => [line(b, 1, payout, 5n), line(b, 2, adjustment, -5n)],
          /merchant of its entry/, // entry b is written for `other`
        ],
      ] as const) {
        await reloadHeads();
        const [a, b] = [uuidv7(), uuidv7()];
        await assert.rejects(
          t.engine.transaction(async (trx) => {
            await trx
              .insertInto('postings')
              .values([line(a, 1, payout, 100n), line(a, 2, adjustment, -100n), ...breakIt(b)])
              .execute();
            await trx
              .insertInto('journal_entries')
              .values([entry(a), entry(b, other)])
              .execute();
          }),
          message,
        );
      }
      assert.deepEqual(await rows(), before);
    });

    test('a multi-row insert whose chain breaks in the middle is refused whole', async () => {
      const before = await rows();
      const e = uuidv7();
      const lines = [line(e, 1, payout, 10n), line(e, 2, payout, 20n), line(e, 3, payout, 30n)];
      lines[1] = { ...lines[1]!, balance_after_minor: lines[1]!.balance_after_minor! + 1n }; // wrong running balance
      await assert.rejects(
        t.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values([...lines, line(e, 4, adjustment, -60n)])
            .execute();
          await trx.insertInto('journal_entries').values(entry(e)).execute();
        }),
        /continue its account/,
      );
      await reloadHeads();
      const skip = uuidv7();
      const skipping = [line(skip, 1, payout, 10n), line(skip, 2, payout, 20n)];
      skipping[1] = { ...skipping[1]!, account_seq: skipping[1]!.account_seq! + 1n }; // skips a sequence number
      await assert.rejects(
        t.engine.transaction((trx) => trx.insertInto('postings').values(skipping).execute()),
        /continue its account/,
      );
      assert.deepEqual(await rows(), before);
    });

    test('an entry whose postings arrive in two statements, its row after them, is accepted', async () => {
      const before = await rows();
      const e = uuidv7();
      await t.engine.transaction(async (trx) => {
        await trx
          .insertInto('postings')
          .values(line(e, 1, payout, 70n))
          .execute();
        await trx
          .insertInto('postings')
          .values(line(e, 2, adjustment, -70n))
          .execute();
        await trx.insertInto('journal_entries').values(entry(e)).execute();
      });
      const now = await rows();
      assert.equal(now.entries, before.entries + 1);
      assert.equal(now.postings, before.postings + 2);
      await sound();
    });

    test('a posting into an entry already written is refused, in its transaction or a later one', async () => {
      const before = await rows();
      const e = uuidv7();
      await assert.rejects(
        t.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values([line(e, 1, payout, 40n), line(e, 2, adjustment, -40n)])
            .execute();
          await trx.insertInto('journal_entries').values(entry(e)).execute();
          await trx
            .insertInto('postings')
            .values([line(e, 3, payout, 1n), line(e, 4, adjustment, -1n)])
            .execute();
        }),
        /already written/,
      );
      assert.deepEqual(await rows(), before);
      await reloadHeads();
      const f = uuidv7();
      await t.engine.transaction(async (trx) => {
        await trx
          .insertInto('postings')
          .values([line(f, 1, payout, 40n), line(f, 2, adjustment, -40n)])
          .execute();
        await trx.insertInto('journal_entries').values(entry(f)).execute();
      });
      await assert.rejects(
        t.engine.transaction(async (trx) => {
          await trx
            .insertInto('postings')
            .values([line(f, 3, payout, 1n), line(f, 4, adjustment, -1n)])
            .execute();
        }),
        /already written/,
      );
      await sound();
    });

    if (dialect === 'postgres') {
      // The completion set's shape (postgres/completion-sets.repo.ts): postings and entries in one statement.
      const together = (postings: ReturnType<typeof line>[], entries: ReturnType<typeof entry>[]) =>
        sql`with p as (
              insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq,
                balance_after_minor, created_at)
              select * from json_populate_recordset(null::postings, ${JSON.stringify(postings, big)}) returning 1
            )
            insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason, created_at)
            select * from json_populate_recordset(null::journal_entries, ${JSON.stringify(entries)})`.execute(t.db);

      test('PostgreSQL: postings and entries in one statement are checked together', async () => {
        const before = await rows();
        const [a, b] = [uuidv7(), uuidv7()];
        await assert.rejects(
          together(
            [line(a, 1, payout, 5n), line(a, 2, adjustment, -5n), line(b, 1, payout, 6n), line(b, 2, adjustment, -7n)],
            [entry(a), entry(b)],
          ),
          /sum to zero/,
        );
        assert.deepEqual(await rows(), before);
        await reloadHeads();
        const [c, d] = [uuidv7(), uuidv7()];
        await together(
          [line(c, 1, payout, 5n), line(c, 2, adjustment, -5n), line(d, 1, payout, 6n), line(d, 2, adjustment, -6n)],
          [entry(c), entry(d)],
        );
        assert.equal((await rows()).entries, before.entries + 2);
        await sound();
      });

      test('PostgreSQL: an entry row written together with only part of its postings is refused', async () => {
        // Stricter than a check per row, on purpose: the statement cannot tell an entry it writes from one
        // written before, so an entry that already has postings from an earlier statement takes no more.
        const before = await rows();
        const e = uuidv7();
        await assert.rejects(
          t.engine.transaction(async (trx) => {
            await trx
              .insertInto('postings')
              .values(line(e, 1, payout, 8n))
              .execute();
            const second = line(e, 2, adjustment, -8n);
            await sql`with p as (
                insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq,
                  balance_after_minor, created_at)
                select * from json_populate_recordset(null::postings, ${JSON.stringify([second], big)})
                returning 1)
              insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason, created_at)
              select * from json_populate_recordset(null::journal_entries, ${JSON.stringify([entry(e)])})`.execute(trx);
          }),
          /already written/,
        );
        assert.deepEqual(await rows(), before);
      });
    }
  });
}

/** JSON.stringify replacer: bigint as a number literal text PostgreSQL reads back exactly. */
function big(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
