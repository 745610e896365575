// `npm run gateway -- ledger credit|debit|show|verify` on both stores, through runCli with a
// capturing io: messages, exit codes, idempotency keys and refused overdrafts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { createTestStore, type TestStore } from '../support/test-store.ts';
import { TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { runCli } from '../../src/cli/run-cli.ts';

type Run = { code: number; out: string; err: string };

for (const { dialect, skip } of await testDialects()) {
  describe(`ledger CLI [${dialect}]`, { skip }, () => {
    let testStore: TestStore;
    let merchant: string;
    const cli = async (...argv: string[]): Promise<Run> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        argv,
        { out: (t) => out.push(t), err: (t) => err.push(t) },
        { DATABASE_URL: testStore.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const adjust = (direction: 'credit' | 'debit', amount: string, key: string, ...extra: string[]) =>
      cli(
        'ledger',
        direction,
        '--merchant',
        merchant,
        '--amount',
        amount,
        '--currency',
        'THB',
        '--reason',
        'test adjustment',
        '--idempotency-key',
        key,
        ...extra,
      );
    const show = async () => JSON.parse((await cli('ledger', 'show', '--merchant', merchant, '--json')).out);

    before(async () => {
      testStore = await createTestStore(dialect);
      const created = await cli(
        'merchant',
        'create',
        '--name',
        'CLI Shop',
        '--payout-currency',
        'THB',
        '--payout-account',
        '4111 1111 1111 9012',
        '--json',
      );
      assert.equal(created.code, 0, created.err);
      merchant = JSON.parse(created.out).merchantid;
    });
    after(() => testStore?.cleanup());

    test('ledger show of a new merchant: the payout account at 0.0000 and no entries', async () => {
      const human = await cli('ledger', 'show', '--merchant', merchant);
      assert.equal(human.code, 0, human.err);
      assert.match(human.out, /payout currency THB, payout account ••••9012/);
      assert.match(human.out, /THB\s+0\.0000\s+0 posting\(s\)\s+\(payout account/);
      assert.match(human.out, /No entries\./);
      const json = await show();
      assert.deepEqual(json.balances, [
        {
          account: `merchant_payout:${merchant}:THB`,
          currency: 'THB',
          balance: '0.0000',
          postings: 0,
          payout_account: true,
        },
      ]);
      assert.deepEqual(json.entries, []);
    });

    test('credit posts once; the same key again says "Already posted" and changes nothing', async () => {
      const first = await adjust('credit', '1500.25', 'cli-credit-1');
      assert.equal(first.code, 0, first.err);
      assert.match(first.out, /^Credited 1500\.2500 THB to merchant \S+ \(entry [0-9a-f-]{36}\)\.$/m);
      assert.match(first.out, /THB balance of merchant \S+: 1500\.2500$/m);
      const again = await adjust('credit', '1500.25', 'cli-credit-1');
      assert.equal(again.code, 0, again.err);
      assert.match(
        again.out,
        new RegExp(
          "^Already posted: idempotency key 'cli-credit-1' was used by entry [0-9a-f-]{36} at .* " +
            '\\(credit of 1500\\.2500 THB\\); nothing was posted again\\.$',
          'm',
        ),
      );
      const json = await show();
      assert.equal(json.balances[0].balance, '1500.2500');
      assert.equal(json.entries.length, 1);
      assert.deepEqual(json.entries[0].postings, [
        {
          line: 1,
          account: `merchant_payout:${merchant}:THB`,
          currency: 'THB',
          amount: '1500.2500',
          balance_after: '1500.2500',
        },
        {
          line: 2,
          account: 'operator_adjustment:gateway:THB',
          currency: 'THB',
          amount: '-1500.2500',
          balance_after: '-1500.2500',
        },
      ]);
    });

    test('reusing a key for a different request is refused with exit 1', async () => {
      const clash = await adjust('credit', '99', 'cli-credit-1');
      assert.equal(clash.code, 1);
      assert.match(
        clash.err,
        new RegExp(
          "^Refused: The idempotency key 'cli-credit-1' was already used for a different request " +
            '\\(credit of 1500\\.2500 THB',
        ),
      );
      assert.equal((await show()).balances[0].balance, '1500.2500');
    });

    test('a debit below zero is refused with a non-zero exit and a clear message, and changes nothing', async () => {
      const before = await show();
      const refused = await adjust('debit', '1500.2501', 'cli-debit-over');
      assert.equal(refused.code, 1);
      assert.equal(refused.out, '');
      assert.equal(
        refused.err,
        'Refused: A debit of 1500.2501 THB would make the THB payout ' +
          'balance negative (available 1500.2500 THB); nothing was posted.',
      );
      assert.deepEqual(await show(), before);
    });

    test('a debit within the balance posts; --json prints the entry', async () => {
      const debit = await adjust('debit', '0.25', 'cli-debit-1', '--json');
      assert.equal(debit.code, 0, debit.err);
      const body = JSON.parse(debit.out);
      assert.equal(body.replayed, false);
      assert.equal(body.kind, 'debit');
      assert.equal(body.amount, '0.2500');
      assert.equal(body.balance, '1500.0000');
      assert.equal(body.idempotency_key, 'cli-debit-1');
      const human = await cli('ledger', 'show', '--merchant', merchant);
      assert.match(human.out, /THB\s+1500\.0000\s+2 posting\(s\)/);
      assert.match(human.out, /debit\s+[0-9a-f-]{36}\s+key cli-debit-1\s+"test adjustment"/);
      assert.match(human.out, /merchant_payout:\S+:THB\s+-0\.2500 THB\s+→ 1500\.0000/);
    });

    test('bad input is a usage or validation error and posts nothing', async () => {
      const entries = (await show()).entries.length;
      const float = await adjust('credit', '1e3', 'cli-bad-1');
      assert.equal(float.code, 1);
      assert.match(float.err, /amount/);
      const missing = await cli(
        'ledger',
        'credit',
        '--merchant',
        merchant,
        '--amount',
        '1',
        '--currency',
        'THB',
        '--reason',
        'x',
      );
      assert.equal(missing.code, 2);
      assert.match(missing.err, /--idempotency-key is required/);
      const unknown = await cli(
        'ledger',
        'credit',
        '--merchant',
        'NOBODY',
        '--amount',
        '1',
        '--currency',
        'THB',
        '--reason',
        'x',
        '--idempotency-key',
        'k-nobody',
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /No merchant with id 'NOBODY'/);
      assert.equal((await show()).entries.length, entries);
    });

    test('ledger verify confirms every invariant', async () => {
      const verify = await cli('ledger', 'verify');
      assert.equal(verify.code, 0, verify.err);
      assert.match(verify.out, /^Ledger OK/);
    });
  });
}
