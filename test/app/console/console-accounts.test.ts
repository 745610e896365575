// Console accounts, sessions and audit on both stores: scrypt passwords, TOTP at login (each
// code once), disabled accounts, merchants' separate console passwords, idle and absolute
// session expiry on an injected clock, and secrets kept out of the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConsoleServices, type ConsoleServices } from '../../../src/app/console/console-services.ts';
import { auditSafeDetails } from '../../../src/app/console/console-audit.ts';
import { consolePasswordMatches, hashConsolePassword } from '../../../src/domain/console-password.ts';
import { base32Decode, hotp, totpStep } from '../../../src/domain/totp.ts';
import { consoleDb } from '../../../src/store/repos/console-tables.ts';
import { testDialects } from '../../support/dialects.ts';
import { addMerchant, startTestGateway, type TestGateway } from '../../support/test-gateway.ts';

test('scrypt hashes: salted, self-describing, checked in constant time; junk never matches', async () => {
  const a = await hashConsolePassword('correct horse battery');
  const b = await hashConsolePassword('correct horse battery');
  assert.notEqual(a, b, 'a fresh salt each time');
  assert.match(a, /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(await consolePasswordMatches('correct horse battery', a), true);
  assert.equal(await consolePasswordMatches('correct horse batterY', a), false);
  assert.equal(await consolePasswordMatches('correct horse battery', undefined), false);
  assert.equal(
    await consolePasswordMatches('x', 'scrypt$40$8$1$AAAAAAAAAAA$BBB'),
    false,
    'absurd parameters are refused, not run',
  );
});

test('every failed check costs one scrypt: a password over 256 characters as much as a wrong one', async () => {
  const stored = await hashConsolePassword('correct horse battery');
  const median = async (password: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      assert.equal(await consolePasswordMatches(password, stored), false);
      times.push(performance.now() - started);
    }
    return times.sort((x, y) => x - y)[2]!;
  };
  const wrong = await median('correct horse batterY');
  const tooLong = await median('x'.repeat(300));
  assert.ok(tooLong >= wrong / 2, `over-long ${tooLong.toFixed(1)} ms vs wrong ${wrong.toFixed(1)} ms`);
  assert.equal(await consolePasswordMatches(`${'x'.repeat(300)}`, stored), false);
});

test('audit details: secret-looking keys are redacted', () => {
  assert.deepEqual(
    auditSafeDetails({ outcome: 'success', password: 'pw_x', webhook_secret: 'whsec', totp: '123456', n: 3 }),
    {
      outcome: 'success',
      password: '[redacted]',
      webhook_secret: '[redacted]',
      totp: '[redacted]',
      n: 3,
    },
  );
  // A yes/no flag is no secret: whether an operator has two-factor stays readable.
  assert.deepEqual(auditSafeDetails({ totp: true, totp_secret: 'JBSWY3DP' }), {
    totp: true,
    totp_secret: '[redacted]',
  });
});

for (const { dialect, skip } of await testDialects()) {
  describe(`console accounts and sessions (${dialect})`, { skip }, () => {
    let gw: TestGateway;
    let c: ConsoleServices;
    before(async () => {
      gw = await startTestGateway(dialect, { CONSOLE_IDLE_TIMEOUT: '30m', CONSOLE_SESSION_LIFETIME: '12h' });
      c = createConsoleServices(gw.config, gw.services.store, gw.services.key, () => gw.clock.now);
    });
    after(() => gw?.close());

    test('an operator with a chosen password logs in; wrong password and unknown name answer alike', async () => {
      const created = await c.accounts.createOperator({
        username: 'Alice',
        password: 'a long enough password',
        totp: false,
      });
      assert.equal(created.username, 'alice');
      assert.equal(created.password, undefined, 'a chosen password is not echoed');
      const row = await consoleDb(gw.testStore)
        .selectFrom('console_operators')
        .selectAll()
        .where('username', '=', 'alice')
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes('a long enough password'), 'the password is not stored');
      assert.deepEqual(await c.accounts.loginOperator('alice', 'a long enough password', ''), {
        ok: true,
        subject: { role: 'operator', id: created.id, name: 'alice' },
      });
      assert.deepEqual(await c.accounts.loginOperator('alice', 'wrong password!!', ''), {
        ok: false,
        reason: 'credentials',
      });
      assert.deepEqual(await c.accounts.loginOperator('nobody', 'a long enough password', ''), {
        ok: false,
        reason: 'credentials',
      });
      await assert.rejects(c.accounts.createOperator({ username: 'alice', totp: false }), /already exists/);
      await assert.rejects(
        c.accounts.createOperator({ username: 'bob', password: 'short', totp: false }),
        /at least 12/,
      );
    });

    test('TOTP: required when enrolled, each code accepted once', async () => {
      const created = await c.accounts.createOperator({ username: 'totp-op', totp: true });
      assert.ok(created.password && created.otpauthUri);
      const secret = base32Decode(new URL(created.otpauthUri).searchParams.get('secret')!);
      const row = await consoleDb(gw.testStore)
        .selectFrom('console_operators')
        .select('totp_secret_enc')
        .where('username', '=', 'totp-op')
        .executeTakeFirstOrThrow();
      assert.ok(row.totp_secret_enc?.startsWith('v1.'), 'the TOTP secret is sealed');
      const code = hotp(secret, totpStep(gw.clock.now));
      assert.equal((await c.accounts.loginOperator('totp-op', created.password, '')).ok, false, 'no code');
      assert.equal(
        (await c.accounts.loginOperator('totp-op', created.password, code === '000000' ? '111111' : '000000')).ok,
        false,
        'wrong code',
      );
      assert.equal((await c.accounts.loginOperator('totp-op', created.password, code)).ok, true);
      assert.equal(
        (await c.accounts.loginOperator('totp-op', created.password, code)).ok,
        false,
        'the same code again',
      );
      gw.clock.now += 30_000;
      assert.equal(
        (await c.accounts.loginOperator('totp-op', created.password, hotp(secret, totpStep(gw.clock.now)))).ok,
        true,
        'the next code works',
      );
    });

    test('a disabled operator cannot log in and loses their sessions', async () => {
      await c.accounts.createOperator({ username: 'carol', password: 'carol password 1', totp: false });
      const login = await c.accounts.loginOperator('carol', 'carol password 1', '');
      assert.ok(login.ok);
      const { token } = await c.sessions.start('operator', login.subject.id);
      assert.ok(await c.sessions.resolve(token));
      await c.accounts.setOperatorStatus('carol', 'disabled');
      assert.equal(await c.sessions.resolve(token), undefined);
      assert.deepEqual(await c.accounts.loginOperator('carol', 'carol password 1', ''), {
        ok: false,
        reason: 'disabled',
      });
      await c.accounts.setOperatorStatus('carol', 'active');
      assert.equal((await c.accounts.loginOperator('carol', 'carol password 1', '')).ok, true);
    });

    test('merchants log in with their console password only, not the API password', async () => {
      const creds = await addMerchant(gw);
      assert.deepEqual(
        await c.accounts.loginMerchant(creds.merchantid, creds.password),
        { ok: false, reason: 'credentials' },
        'no console password yet',
      );
      const issued = await c.accounts.issueMerchantPassword(creds.merchantid);
      assert.notEqual(issued.password, creds.password);
      assert.equal((await c.accounts.loginMerchant(creds.merchantid, issued.password)).ok, true);
      assert.equal((await c.accounts.loginMerchant(creds.merchantid, creds.password)).ok, false);
      const again = await c.accounts.issueMerchantPassword(creds.merchantid);
      assert.equal(
        (await c.accounts.loginMerchant(creds.merchantid, issued.password)).ok,
        false,
        'the old console password stops working',
      );
      assert.equal((await c.accounts.loginMerchant(creds.merchantid, again.password)).ok, true);
      await gw.services.manageMerchants.setStatus(creds.merchantid, 'disabled');
      assert.deepEqual(await c.accounts.loginMerchant(creds.merchantid, again.password), {
        ok: false,
        reason: 'disabled',
      });
      await assert.rejects(c.accounts.issueMerchantPassword('no-such-merchant'), /No merchant/);
    });

    test('sessions: only a keyed hash is stored; idle timeout and absolute lifetime end them', async () => {
      const login = await c.accounts.loginOperator('alice', 'a long enough password', '');
      assert.ok(login.ok);
      const { token } = await c.sessions.start('operator', login.subject.id);
      const stored = await consoleDb(gw.testStore).selectFrom('console_sessions').select('id_hash').execute();
      assert.ok(
        stored.every((s) => s.id_hash !== token),
        'the token itself is not stored',
      );
      gw.clock.now += 29 * 60_000;
      assert.ok(await c.sessions.resolve(token), 'used within the idle timeout');
      gw.clock.now += 29 * 60_000;
      assert.ok(await c.sessions.resolve(token), 'each request moves the idle deadline');
      gw.clock.now += 30 * 60_000;
      assert.equal(await c.sessions.resolve(token), undefined, '30 minutes idle: gone');

      const second = await c.sessions.start('operator', login.subject.id);
      for (let i = 0; i < 24; i++) {
        gw.clock.now += 29 * 60_000;
        assert.ok(await c.sessions.resolve(second.token), `active at ${(i + 1) * 29} minutes`);
      }
      gw.clock.now += 29 * 60_000;
      assert.equal(await c.sessions.resolve(second.token), undefined, 'past 12 hours even when active');
      assert.equal(await c.sessions.resolve('not-a-token'), undefined);
    });

    test('audit entries are stored with who, what, target and origin', async () => {
      await c.audit.record(
        { role: 'operator', id: 'op_1' },
        'merchant.create',
        'M123',
        { name: 'Shop', password: 'pw_secret' },
        { remoteAddr: '127.0.0.1', requestId: 'req-1' },
      );
      const [entry] = await gw.services.store.consoleAccounts.listAudit({ limit: 1 });
      assert.equal(entry?.action, 'merchant.create');
      assert.equal(entry?.actorId, 'op_1');
      assert.equal(entry?.target, 'M123');
      assert.equal(entry?.remoteAddr, '127.0.0.1');
      assert.equal(entry?.requestId, 'req-1');
      assert.deepEqual(entry?.details, { name: 'Shop', password: '[redacted]' });
    });
  });
}
