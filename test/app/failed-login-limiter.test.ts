// The failed-login limiter (docs/operations.md "Failed-login lockout") stays bounded and keeps
// protecting real merchants while a flood of failures with made-up merchantids (and addresses)
// fills its table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowCounter } from '../../src/app/rate-limiter.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { isGatewayError } from '../../src/domain/errors.ts';

function tagOf(run: () => unknown): string {
  try {
    run();
    return 'OK';
  } catch (error) {
    if (isGatewayError(error)) return error.tag;
    throw error;
  }
}

describe('failed logins under a flood of distinct merchantids (default limits: 20 per minute, 100,000 keys)', () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  before(async () => {
    gw = await startTestGateway('sqlite');
    creds = await addMerchant(gw);
  });
  after(() => gw?.close());

  test(
    'after 100,050 flood failures, guessing a real merchant ' +
      'password is still locked out; the merchant still logs in',
    () => {
      const directory = gw.services.directory;
      for (let i = 0; i < 100_050; i++) {
        const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
        assert.equal(
          tagOf(() => directory.authenticate(`nobody-${i}`, 'wrong', address)),
          'INVALID_CREDENTIALS',
        );
      }
      const attacker = '203.0.113.9';
      const tags = Array.from({ length: 25 }, () =>
        tagOf(() => directory.authenticate(creds.merchantid, 'guess', attacker)),
      );
      assert.deepEqual(tags.slice(0, 20), Array(20).fill('INVALID_CREDENTIALS'));
      assert.deepEqual(tags.slice(20), Array(5).fill('RATE_LIMITED'), 'the 21st failure and later are refused');
      assert.equal(
        tagOf(() => directory.authenticate(creds.merchantid, creds.password, attacker)),
        'RATE_LIMITED',
        'even the right password, from the locked-out client',
      );
      assert.equal(
        tagOf(() => directory.authenticate(creds.merchantid, creds.password, '198.51.100.7')),
        'OK',
        'the merchant itself, from its own address, is not locked out',
      );
    },
  );
});

describe('WindowCounter', () => {
  test('stays within 2 × maxKeys entries under any number of distinct keys', () => {
    const counter = new WindowCounter(3, 60_000, () => 1_000, 1000);
    for (let i = 0; i < 50_000; i++) counter.hit(`flood-${i}`);
    assert.ok(counter.trackedKeys <= 1000, `${counter.trackedKeys} keys tracked`);
    for (let i = 0; i < 5_000; i++) for (let j = 0; j < 3; j++) counter.hit(`limited-${i}`);
    assert.ok(counter.trackedKeys <= 2000, `${counter.trackedKeys} keys tracked`);
  });

  test('a key at its limit stays limited for the window while fresh keys flood in', () => {
    const counter = new WindowCounter(3, 60_000, () => 1_000, 100);
    for (let j = 0; j < 3; j++) counter.hit('victim-attacker');
    assert.ok(counter.exceeded('victim-attacker'));
    for (let i = 0; i < 10_000; i++) counter.hit(`flood-${i}`);
    assert.ok(counter.exceeded('victim-attacker'), 'the lockout survived the flood');
  });

  test('a key being hammered is not pushed out by the flood before it reaches the limit', () => {
    const counter = new WindowCounter(5, 60_000, () => 1_000, 100);
    for (let round = 0; round < 5; round++) {
      counter.hit('attacker');
      for (let i = 0; i < 99; i++) counter.hit(`flood-${round}-${i}`);
    }
    assert.ok(counter.exceeded('attacker'));
  });

  test('the window resets every count', () => {
    const clock = { now: 1_000 };
    const counter = new WindowCounter(2, 60_000, () => clock.now, 100);
    counter.hit('k');
    counter.hit('k');
    assert.ok(counter.exceeded('k'));
    clock.now += 60_000;
    assert.ok(!counter.exceeded('k'));
  });

  test('at the cap, locked-out keys are kept and new keys are refused until the window ends', () => {
    const clock = { now: 1_000 };
    const counter = new WindowCounter(3, 60_000, () => clock.now, 100);
    for (let j = 0; j < 3; j++) counter.hit('victim-attacker');
    for (let i = 0; i < 500; i++) for (let j = 0; j < 3; j++) counter.hit(`locked-${i}`);
    assert.ok(counter.exceeded('victim-attacker'), 'the first lockout is still there');
    assert.ok(counter.exceeded('locked-98'), 'so is every lockout that fitted');
    assert.ok(counter.exceeded('someone-new'), 'a key the full table cannot hold is refused');
    assert.equal(counter.take(['someone-new']), undefined);
    assert.ok(counter.trackedKeys <= 200, `${counter.trackedKeys} keys tracked`);
    clock.now += 60_000;
    assert.ok(!counter.exceeded('someone-new'), 'the next window starts empty');
  });

  test('take counts before the work: at most the limit is taken, whatever runs at once; release gives back', () => {
    const clock = { now: 1_000 };
    const counter = new WindowCounter(10, 60_000, () => clock.now, 100);
    const taken = Array.from({ length: 20 }, () => counter.take(['ip:a', 'account:op']));
    assert.equal(taken.filter(Boolean).length, 10);
    assert.ok(counter.exceeded('account:op'));
    counter.release(taken[9]!);
    assert.ok(!counter.exceeded('account:op'), 'a success gives its attempt back');
    assert.ok(counter.take(['ip:b', 'account:op']));
    assert.equal(counter.take(['ip:c', 'account:op']), undefined);
    assert.ok(!counter.exceeded('ip:c'), 'a refused take counts nothing');
    clock.now += 60_000;
    counter.release(taken[0]!);
    assert.ok(counter.take(['ip:a']), 'an old window is not given back into the new one');
  });
});
