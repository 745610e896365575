// Property: whatever sequence of payments, completions, operator credits and debits happens —
// one at a time or racing each other — the ledger stays sound after EVERY step:
//   1. each journal entry sums to zero per currency (and has at least two postings);
//   2. every stored balance (and posting count) equals what its postings add up to;
//   3. no merchant payout balance is negative;
//   4. an idempotency key never posts twice, and a transaction posts at most once;
// and the balances equal an independent model built by this file (own half-even fee).
// The invariant queries below are written here, independently of ledger.repo.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { LedgerOperations, type AdjustmentResult } from '../../src/app/ledger-operations.ts';
import { LedgerRefusal } from '../../src/domain/ledger.ts';

const RUNS = Number(process.env.LEDGER_PROPERTY_RUNS ?? 100);
const MAX_STEPS = 30;

// ---- The program: random steps over two merchants (a THB and a PHP payout merchant). ----
type Pay = { op: 'pay'; m: 0 | 1; satang: bigint };
type Complete = { op: 'complete'; pick: number; outcome: 'success' | 'failed' | 'cancelled' | undefined };
type Adjust = {
  op: 'adjust';
  direction: 'credit' | 'debit';
  m: 0 | 1;
  inPayoutCurrency: boolean;
  minor: bigint;
  drain: boolean;
  keySlot: number;
  reasonSlot: number;
};
/** Sends an earlier adjustment again, byte for byte (what a retrying operator does). */
type Replay = { op: 'replay'; pick: number };
type Single = Pay | Complete | Adjust | Replay;
type Step = Single | { op: 'concurrent'; ops: Single[] };

const merchantArb = fc.constantFrom<0 | 1>(0, 1);
const payArb = fc.record({
  op: fc.constant('pay' as const),
  m: merchantArb,
  satang: fc.bigInt({ min: 10_000n, max: 1_200_000n }),
}); // 100.00–12,000.00 THB: some are declined
const completeArb = fc.record({
  op: fc.constant('complete' as const),
  pick: fc.nat(50),
  outcome: fc.constantFrom(undefined, 'success' as const, 'failed' as const, 'cancelled' as const),
});
const adjustArb = fc.record({
  op: fc.constant('adjust' as const),
  direction: fc.constantFrom('credit' as const, 'debit' as const),
  m: merchantArb,
  inPayoutCurrency: fc.boolean(),
  minor: fc.oneof(fc.bigInt({ min: 1n, max: 5_000_000n }), fc.constantFrom(1n, 9_999n, 10_000n, 123_456_789n)),
  drain: fc.boolean(), // a debit of exactly the whole balance (sequential steps only)
  keySlot: fc.nat(5), // few slots, so keys get replayed and reused for other requests
  reasonSlot: fc.nat(1),
});
const replayArb = fc.record({ op: fc.constant('replay' as const), pick: fc.nat(50) });
const singleArb: fc.Arbitrary<Single> = fc.oneof(
  { arbitrary: adjustArb, weight: 3 },
  { arbitrary: payArb, weight: 2 },
  { arbitrary: completeArb, weight: 2 },
  { arbitrary: replayArb, weight: 1 },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: singleArb, weight: 4 },
  {
    arbitrary: fc.record({
      op: fc.constant('concurrent' as const),
      ops: fc.array(singleArb, { minLength: 2, maxLength: 6 }),
    }),
    weight: 1,
  },
);
const programArb = fc.record({
  feeRates: fc.tuple(fc.constantFrom('0', '0.025', '0.0333', '0.1'), fc.constantFrom('0', '0.015', '0.05')),
  steps: fc.array(stepArb, { minLength: 5, maxLength: MAX_STEPS }),
});

// ---- The model: written here, not taken from the code under test. ----
function halfEvenFee(amountMinor: bigint, feeRate: string): bigint {
  const [whole = '0', fraction = ''] = feeRate.split('.');
  const ppm = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  const product = amountMinor * ppm;
  const q = product / 1_000_000n;
  const twice = (product % 1_000_000n) * 2n;
  return twice > 1_000_000n || (twice === 1_000_000n && q % 2n === 1n) ? q + 1n : q;
}
const decimal4 = (minor: bigint) => `${minor / 10_000n}.${(minor % 10_000n).toString().padStart(4, '0')}`;

type KeyUse = { direction: string; merchant: string; currency: string; minor: bigint; reason: string };

// ---- Invariants over the whole database, by plain SQL. ----
async function assertInvariants(gw: TestGateway): Promise<void> {
  const db = gw.testStore.db;
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
  assert.deepEqual(
    await rows(sql`select entry_id, currency from postings group by entry_id, currency having sum(amount_minor) <> 0`),
    [],
    'every entry sums to zero per currency',
  );
  assert.deepEqual(
    await rows(
      sql`select e.id from journal_entries e left join postings p on p.entry_id = e.id
          group by e.id having count(p.entry_id) < 2`,
    ),
    [],
    'every entry has at least two postings',
  );
  assert.deepEqual(
    await rows(
      sql`select p.entry_id from postings p left join journal_entries e on e.id = p.entry_id where e.id is null`,
    ),
    [],
    'no posting without its entry',
  );
  // A stored balance is the sum of the account's chained postings (all of them, except on the
  // summed fee and clearing accounts, whose unchained postings are summed on read: migration 011).
  assert.deepEqual(
    await rows(sql`select a.id from ledger_accounts a left join (select account_id, sum(amount_minor) as s,
                     count(*) as c from postings where account_seq is not null group by account_id) p
                     on p.account_id = a.id
                   where a.balance_minor <> coalesce(p.s, 0) or a.posting_count <> coalesce(p.c, 0)`),
    [],
    'every stored balance equals the sum of its chained postings',
  );
  assert.deepEqual(
    await rows(sql`select p.entry_id, p.account_id from postings p join ledger_accounts a on a.id = p.account_id
                   where p.account_seq is null and a.kind not in ('gateway_fee', 'gateway_clearing')`),
    [],
    'payout and adjustment accounts carry a running balance on every posting',
  );
  assert.deepEqual(
    await rows(sql`select id from ledger_accounts where kind = 'merchant_payout' and balance_minor < 0`),
    [],
    'no payout balance is negative',
  );
  assert.deepEqual(
    await rows(
      sql`select idempotency_key from journal_entries where idempotency_key is not null
          group by idempotency_key having count(*) > 1`,
    ),
    [],
    'a key posts once',
  );
  assert.deepEqual(
    await rows(
      sql`select transaction_id from journal_entries where transaction_id is not null
          group by transaction_id having count(*) > 1`,
    ),
    [],
    'a payment posts once',
  );
}

/** Balances (the sum of every posting of the account) as text, exact on both stores, keyed by account id. */
async function balances(gw: TestGateway, ids: string[]): Promise<Map<string, bigint>> {
  const found = await gw.testStore.db
    .selectFrom('postings')
    .select(['account_id as id', sql<string>`cast(sum(amount_minor) as text)`.as('b')])
    .where('account_id', 'in', ids)
    .groupBy('account_id')
    .execute();
  return new Map(ids.map((id) => [id, BigInt(found.find((r) => r.id === id)?.b ?? '0')]));
}

for (const { dialect, skip } of await testDialects()) {
  describe(`ledger property [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let ops: LedgerOperations;
    before(async () => {
      gw = await startTestGateway(dialect);
      const { store, ledger, merchants, now } = gw.services;
      ops = new LedgerOperations({ store, ledger, merchants, now });
    });
    after(() => gw?.close());

    test(
      'random sequences of payments, completions, ' +
        'credits and debits (some concurrent) keep every invariant after every step',
      async (t) => {
        const figures = {
          sequences: 0,
          steps: 0,
          operations: 0,
          concurrentBatches: 0,
          posted: 0,
          replayed: 0,
          conflicts: 0,
          overdrafts: 0,
          payments: 0,
          invalidState: 0,
        };
        let run = 0;
        await fc.assert(
          fc.asyncProperty(programArb, async ({ feeRates, steps }) => {
            run++;
            figures.sequences++;
            const creds: [MerchantCredentials, MerchantCredentials] = [
              await addMerchant(gw, { payoutCurrency: 'THB', feeRate: feeRates[0] }),
              await addMerchant(gw, { payoutCurrency: 'PHP', feeRate: feeRates[1] }),
            ];
            const ids = creds.map((c) => c.merchantid) as [string, string];
            const payoutCurrency = ['THB', 'PHP'] as const;
            const accounts = [
              `merchant_payout:${ids[0]}:THB`,
              `merchant_payout:${ids[1]}:THB`,
              `merchant_payout:${ids[1]}:PHP`,
            ];
            const gatewayAccounts = [
              'gateway_fee:gateway:THB',
              'gateway_clearing:gateway:THB',
              'operator_adjustment:gateway:THB',
              'operator_adjustment:gateway:PHP',
            ];
            // Model: expected balances (merchant accounts absolute, gateway accounts as deltas from this run's start).
            const model = new Map<string, bigint>([
              ...accounts.map((a) => [a, 0n] as const),
              ...gatewayAccounts.map((a) => [a, 0n] as const),
            ]);
            const gatewayStart = await balances(gw, gatewayAccounts);
            const add = (id: string, delta: bigint) => model.set(id, (model.get(id) ?? 0n) + delta);
            const keys = new Map<string, KeyUse>();
            const txs: Array<{ id: string; m: 0 | 1; satang: bigint; status: 'PROCESSING' | 'FINAL' }> = [];
            let expectedEntries = 0;
            let trackNo = 0;

            const doPay = async (s: Pay) => {
              const amount = `${s.satang / 100n}.${(s.satang % 100n).toString().padStart(2, '0')}`;
              const res = await post(
                gw,
                '/transaction/s2s',
                initiationBody(creds[s.m], { trackid: `p${run}-${++trackNo}`, bill_amount: amount }),
              );
              assert.equal(res.body.responsecode, '9', JSON.stringify(res.body));
              txs.push({ id: res.body.transactionid, m: s.m, satang: s.satang, status: 'PROCESSING' });
            };
            /** Returns whether this call finalised the transaction (the model is updated by the caller's rules). */
            const doComplete = async (s: Complete, sequential: boolean) => {
              const tx = txs[s.pick % txs.length];
              if (!tx) return;
              const res = await post(gw, '/sandbox/transaction/complete', {
                merchantid: creds[tx.m].merchantid,
                password: creds[tx.m].password,
                transactionid: tx.id,
                ...(s.outcome && { outcome: s.outcome }),
              });
              if (res.status === 409) {
                assert.equal(res.body.error_code_tag, 'INVALID_STATE');
                if (sequential) assert.equal(tx.status, 'FINAL', 'only a final transaction refuses completion');
                figures.invalidState++;
                return;
              }
              assert.equal(res.status, 200, JSON.stringify(res.body));
              assert.equal(tx.status, 'PROCESSING');
              tx.status = 'FINAL';
              const minor = tx.satang * 100n;
              const succeeds = s.outcome === 'success' || (s.outcome === undefined && minor <= 100_000_000n);
              assert.equal(res.body.responsecode, succeeds ? '0' : '6');
              if (!succeeds) return;
              const fee = halfEvenFee(minor, feeRates[tx.m]);
              add(`merchant_payout:${ids[tx.m]}:THB`, minor - fee);
              add('gateway_fee:gateway:THB', fee);
              add('gateway_clearing:gateway:THB', -minor);
              expectedEntries++;
              figures.payments++;
            };
            const sent: Array<Adjust & { minor: bigint }> = [];
            const doAdjust = async (s: Adjust, sequential: boolean) => {
              const merchant = ids[s.m];
              const currency = s.inPayoutCurrency ? payoutCurrency[s.m] : 'THB';
              const account = `merchant_payout:${merchant}:${currency}`;
              const held = model.get(account) ?? 0n;
              const minor = sequential && s.drain && s.direction === 'debit' && held > 0n ? held : s.minor;
              sent.push({ ...s, minor, drain: false });
              const key = `r${run}-k${s.keySlot}`;
              const use: KeyUse = {
                direction: s.direction,
                merchant,
                currency,
                minor,
                reason: `reason ${s.reasonSlot}`,
              };
              const earlier = keys.get(key);
              let result: AdjustmentResult;
              try {
                result = await ops.adjust({
                  direction: s.direction,
                  merchantId: merchant,
                  amount: decimal4(minor),
                  currency,
                  reason: use.reason,
                  idempotencyKey: key,
                });
              } catch (error) {
                assert.ok(error instanceof LedgerRefusal, String(error));
                if (error.reason === 'IDEMPOTENCY_CONFLICT') {
                  figures.conflicts++;
                  if (sequential)
                    assert.ok(
                      earlier && JSON.stringify(earlier, bigints) !== JSON.stringify(use, bigints),
                      'a conflict needs an earlier, different use of the key',
                    );
                } else {
                  figures.overdrafts++;
                  if (sequential)
                    assert.ok(
                      s.direction === 'debit' && held < minor && earlier === undefined,
                      'an overdraft refusal needs a debit beyond the balance',
                    );
                }
                return;
              }
              if (result.replayed) {
                figures.replayed++;
                if (sequential) assert.deepEqual(earlier, use, 'a replay needs an earlier, identical use of the key');
                return;
              }
              if (sequential) {
                assert.equal(earlier, undefined, 'a new posting needs an unused key');
                if (s.direction === 'debit') assert.ok(held >= minor, 'a debit posts only within the balance');
              }
              keys.set(key, use);
              const signed = s.direction === 'credit' ? minor : -minor;
              add(account, signed);
              add(`operator_adjustment:gateway:${currency}`, -signed);
              expectedEntries++;
              figures.posted++;
            };
            const runSingle = async (s: Single, sequential: boolean): Promise<void> => {
              if (s.op === 'pay') return doPay(s);
              if (s.op === 'complete') return doComplete(s, sequential);
              if (s.op === 'adjust') return doAdjust(s, sequential);
              const again = sent[s.pick % Math.max(sent.length, 1)];
              if (again) return doAdjust(again, sequential);
            };

            for (const step of steps) {
              figures.steps++;
              if (step.op === 'concurrent') {
                figures.concurrentBatches++;
                figures.operations += step.ops.length;
                const settled = await Promise.allSettled(step.ops.map((s) => runSingle(s, false)));
                for (const s of settled) if (s.status === 'rejected') throw s.reason;
              } else {
                figures.operations++;
                await runSingle(step, true);
              }
              // After every step: the invariants, the model, and "replays never posted twice" as an entry count.
              await assertInvariants(gw);
              const merchantNow = await balances(gw, accounts);
              for (const id of accounts) assert.equal(merchantNow.get(id), model.get(id), `balance of ${id}`);
              const gatewayNow = await balances(gw, gatewayAccounts);
              for (const id of gatewayAccounts)
                assert.equal(
                  (gatewayNow.get(id) ?? 0n) - (gatewayStart.get(id) ?? 0n),
                  model.get(id),
                  `movement of ${id}`,
                );
              // What the gateway reports for the summed accounts (row + postings without a chain) is that sum too.
              for (const kind of ['gateway_fee', 'gateway_clearing'] as const) {
                assert.equal(
                  await gw.services.ledger.balance({ kind, merchantId: null, currency: 'THB' }),
                  gatewayNow.get(`${kind}:gateway:THB`) ?? 0n,
                  `reported balance of ${kind}`,
                );
              }
              const entries = await gw.testStore.db
                .selectFrom('journal_entries')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('merchant_id', 'in', ids)
                .executeTakeFirstOrThrow();
              assert.equal(
                Number(entries.n),
                expectedEntries,
                'entries posted = postings the model expects (no replay posted twice)',
              );
            }
          }),
          { numRuns: RUNS, endOnFailure: true },
        );
        t.diagnostic(`ledger property [${dialect}]: ${JSON.stringify(figures)}`);
        assert.equal(figures.sequences, RUNS);
        // The generator must actually exercise every outcome, or the property proves little.
        for (const k of [
          'posted',
          'replayed',
          'conflicts',
          'overdrafts',
          'payments',
          'invalidState',
          'concurrentBatches',
        ] as const)
          assert.ok(figures[k] > 0, `no ${k} were exercised`);
      },
    );
  });
}

function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
