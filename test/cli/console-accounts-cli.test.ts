// The console's CLI commands on both stores: operator create (generated password printed once,
// or read from stdin; --totp prints the otpauth URI once), list (no secrets), disable/enable,
// and merchant set-console-password — each usable to log in, each in the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.ts';
import { createConsoleServices } from '../../src/app/console/console-services.ts';
import { loadConfig } from '../../src/config.ts';
import { openStoreEngine, type StoreEngine } from '../../src/store/engine.ts';
import { storeOver } from '../../src/store/open-store.ts';
import { base32Decode, hotp, totpStep } from '../../src/domain/totp.ts';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { gatewayEnv } from '../support/gateway-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath;

async function cli(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function withStdin(
  args: string[],
  env: Record<string, string>,
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, ['src/cli/index.ts', ...args], {
      cwd: ROOT,
      env: gatewayEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`console accounts from the CLI (${dialect})`, { skip }, () => {
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    let store: StoreEngine;
    const consoleServices = () =>
      createConsoleServices(loadConfig(env), storeOver(store), Buffer.from(TEST_SECRET_KEY_HEX, 'hex'));

    before(async () => {
      const db = await createTestDatabase(dialect);
      drop = db.drop;
      env = { DATABASE_URL: db.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX, CREATE_DEMO_MERCHANT: 'false' };
      assert.equal(
        (
          await cli(
            [
              'merchant',
              'create',
              '--name',
              'Console Shop',
              '--payout-currency',
              'THB',
              '--payout-account',
              '1234567890',
              '--id',
              'console-shop',
            ],
            env,
          )
        ).code,
        0,
      );
      store = openStoreEngine(db.databaseUrl);
    });
    after(async () => {
      await store?.close();
      await drop?.();
    });

    test('operator create prints a generated password once; it logs in; list shows no secret', async () => {
      const run = await cli(['operator', 'create', '--username', 'Alice'], env);
      assert.equal(run.code, 0, run.err);
      const password = /password: +(\S+)/.exec(run.out)![1]!;
      assert.equal((await consoleServices().accounts.loginOperator('alice', password, '')).ok, true);
      const list = await cli(['operator', 'list'], env);
      assert.deepEqual(list.out.split('\n')[0]!.split('\t'), ['USERNAME', 'STATUS', 'TOTP', 'CREATED_AT']);
      assert.match(list.out, /^alice\tactive\tno\t/m);
      assert.ok(!list.out.includes(password));
      const again = await cli(['operator', 'create', '--username', 'alice'], env);
      assert.equal(again.code, 1);
      assert.match(again.err, /already exists/);
    });

    test('operator create --totp --json: the otpauth URI once; the code it yields logs in', async () => {
      const run = await cli(['operator', 'create', '--username', 'bob', '--totp', '--json'], env);
      const printed = JSON.parse(run.out) as { username: string; password: string; otpauth_uri: string };
      assert.equal(printed.username, 'bob');
      const secret = base32Decode(new URL(printed.otpauth_uri).searchParams.get('secret')!);
      const c = consoleServices();
      assert.equal((await c.accounts.loginOperator('bob', printed.password, '')).ok, false);
      assert.equal(
        (await c.accounts.loginOperator('bob', printed.password, hotp(secret, totpStep(Date.now())))).ok,
        true,
      );
    });

    test('operator create --password-stdin reads the password from stdin and prints none', async () => {
      const run = await withStdin(
        ['operator', 'create', '--username', 'carol', '--password-stdin'],
        env,
        'carol chose this one\n',
      );
      assert.equal(run.code, 0, run.stderr);
      assert.ok(!run.stdout.includes('carol chose this one'));
      assert.doesNotMatch(run.stdout, /password:/);
      assert.equal((await consoleServices().accounts.loginOperator('carol', 'carol chose this one', '')).ok, true);
      const short = await withStdin(['operator', 'create', '--username', 'dave', '--password-stdin'], env, 'short\n');
      assert.equal(short.code, 1);
      assert.match(short.stderr, /at least 12/);
    });

    test('operator disable / enable', async () => {
      assert.deepEqual(JSON.parse((await cli(['operator', 'disable', 'alice', '--json'], env)).out), {
        username: 'alice',
        status: 'disabled',
      });
      assert.match((await cli(['operator', 'list'], env)).out, /^alice\tdisabled/m);
      assert.deepEqual(JSON.parse((await cli(['operator', 'enable', 'alice', '--json'], env)).out), {
        username: 'alice',
        status: 'active',
      });
      const unknown = await cli(['operator', 'disable', 'nobody'], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /No operator named 'nobody'/);
    });

    test('operator reset-password: a new generated password works, the old one does not, sessions end', async () => {
      const created = JSON.parse((await cli(['operator', 'create', '--username', 'erin', '--json'], env)).out) as {
        password: string;
      };
      const c = consoleServices();
      const login = await c.accounts.loginOperator('erin', created.password, '');
      assert.ok(login.ok);
      const { token } = await c.sessions.start('operator', login.subject.id);
      const reset = JSON.parse((await cli(['operator', 'reset-password', 'erin', '--json'], env)).out) as {
        username: string;
        password: string;
      };
      assert.equal(reset.username, 'erin');
      assert.notEqual(reset.password, created.password);
      assert.equal((await c.accounts.loginOperator('erin', created.password, '')).ok, false);
      assert.equal((await c.accounts.loginOperator('erin', reset.password, '')).ok, true);
      assert.equal(await c.sessions.resolve(token), undefined, 'the old session ended');
      const chosen = await withStdin(
        ['operator', 'reset-password', 'erin', '--password-stdin'],
        env,
        'erin picked a new one\n',
      );
      assert.equal(chosen.code, 0, chosen.stderr);
      assert.ok(!chosen.stdout.includes('erin picked a new one'));
      assert.equal((await c.accounts.loginOperator('erin', 'erin picked a new one', '')).ok, true);
      assert.equal((await cli(['operator', 'reset-password', 'nobody'], env)).code, 1);
    });

    test("merchant disable ends the merchant's console sessions: a re-enable does not bring them back", async () => {
      const created = await cli(
        ['merchant', 'create', '--name', 'Disabled Shop', '--payout-currency', 'THB'].concat([
          '--payout-account',
          '1234567890',
          '--id',
          'disabled-shop',
        ]),
        env,
      );
      assert.equal(created.code, 0, created.err);
      const c = consoleServices();
      const { password } = await c.accounts.issueMerchantPassword('disabled-shop');
      const login = await c.accounts.loginMerchant('disabled-shop', password);
      assert.ok(login.ok);
      const { token } = await c.sessions.start('merchant', login.subject.id);
      assert.ok(await c.sessions.resolve(token), 'the session works before the disable');
      assert.equal((await cli(['merchant', 'disable', 'disabled-shop'], env)).code, 0);
      assert.equal((await cli(['merchant', 'enable', 'disabled-shop'], env)).code, 0);
      assert.equal(await c.sessions.resolve(token), undefined, 'the session ended at the disable');
      assert.equal((await c.accounts.loginMerchant('disabled-shop', password)).ok, true, 'a new login works');
    });

    test(
      'merchant set-console-password prints it once; ' + 'the merchant logs in with it; every command is audited',
      async () => {
        const run = await cli(['merchant', 'set-console-password', 'console-shop', '--json'], env);
        const issued = JSON.parse(run.out) as { merchantid: string; password: string };
        assert.equal(issued.merchantid, 'console-shop');
        assert.equal((await consoleServices().accounts.loginMerchant('console-shop', issued.password)).ok, true);
        assert.equal((await cli(['merchant', 'set-console-password', 'nobody'], env)).code, 1);
        const audit = await storeOver(store).consoleAccounts.listAudit({ limit: 50 });
        const actions = audit.filter((e) => e.actorRole === 'cli').map((e) => `${e.action} ${e.target}`);
        for (const a of [
          'operator.create alice',
          'operator.create bob',
          'operator.create carol',
          'operator.disable alice',
          'operator.enable alice',
          'operator.reset_password erin',
          'merchant.console_password console-shop',
        ])
          assert.ok(actions.includes(a), a);
        assert.ok(!JSON.stringify(audit).includes(issued.password));
      },
    );
  });
}
