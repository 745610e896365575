// The operator's view, with real processes: the CLI changes merchants while a server runs on the
// same database, and the running server follows within 5 seconds (README.md "Operator CLI").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { TEST_SECRET_KEY_HEX, fixture } from '../support/test-gateway.ts';
import {
  eventually,
  httpPost,
  killLeftoverGateways,
  runCliProcess,
  startGatewayProcess,
  type GatewayProcess,
} from '../support/gateway-process.ts';

const PROPAGATION_LIMIT_MS = 5000;

for (const { dialect, skip } of await testDialects()) {
  describe(`operator CLI against a running gateway [${dialect}]`, { skip }, () => {
    let gateway: GatewayProcess;
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    before(async () => {
      const db = await createTestDatabase(dialect);
      drop = db.drop;
      env = { DATABASE_URL: db.databaseUrl, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX, CREATE_DEMO_MERCHANT: 'false' };
      gateway = await startGatewayProcess({ ...env, PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    });
    after(async () => {
      await gateway?.stop();
      await killLeftoverGateways();
      await drop?.();
    });

    const initiate = (creds: { merchantid: string; password: string }, trackid: string) =>
      httpPost(`${gateway.url}/transaction/s2s`, { ...JSON.parse(fixture('string-amount.json', creds)), trackid });

    test('merchant create --json prints one JSON object and the merchant can pay within 5 s', async () => {
      const created = await runCliProcess(
        [
          'merchant',
          'create',
          '--name',
          'CLI Shop',
          '--payout-currency',
          'PHP',
          '--payout-account',
          '4111 1111 1111 4242',
          '--id',
          'cli-shop',
          '--json',
        ],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const lines = created.stdout.trim().split('\n');
      assert.equal(lines.length, 1, 'exactly one line on stdout');
      const issued = JSON.parse(lines[0]!);
      assert.deepEqual(Object.keys(issued).sort(), ['merchantid', 'password', 'webhook_secret']);
      assert.equal(issued.merchantid, 'cli-shop');
      assert.match(issued.password, /^pw_[A-Za-z0-9_-]{32}$/);
      assert.match(issued.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const elapsed = await eventually(
        async () => (await initiate(issued, 'cli-1')).status === 200,
        PROPAGATION_LIMIT_MS,
      );
      assert.ok(elapsed <= PROPAGATION_LIMIT_MS);
    });

    test('merchant list shows the merchant without any secret', async () => {
      const listed = await runCliProcess(['merchant', 'list', '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout).merchants;
      const row = rows.find((r: { merchantid: string }) => r.merchantid === 'cli-shop');
      assert.equal(row.status, 'active');
      assert.equal(row.payout_account, '••••4242');
      assert.doesNotMatch(listed.stdout, /pw_|whsec_|password|hash/);
    });

    test('rotate-password: the old password stops and the new one works within 5 s', async () => {
      const created = JSON.parse(
        (
          await runCliProcess(
            [
              'merchant',
              'create',
              '--name',
              'Rotate',
              '--payout-currency',
              'THB',
              '--payout-account',
              '1234567890',
              '--json',
            ],
            env,
          )
        ).stdout,
      );
      await eventually(async () => (await initiate(created, 'rot-0')).status === 200, PROPAGATION_LIMIT_MS);
      const rotated = await runCliProcess(['merchant', 'rotate-password', created.merchantid, '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const fresh = JSON.parse(rotated.stdout);
      assert.notEqual(fresh.password, created.password);
      await eventually(
        async () =>
          (await initiate({ merchantid: created.merchantid, password: fresh.password }, 'rot-1')).status === 200,
        PROPAGATION_LIMIT_MS,
      );
      const old = await initiate(created, 'rot-2');
      assert.equal(old.status, 401);
      assert.equal(old.body.error_code_tag, 'INVALID_CREDENTIALS');
    });

    test('merchant disable takes effect within 5 s (403 MERCHANT_DISABLED); enable restores it', async () => {
      const created = JSON.parse(
        (
          await runCliProcess(
            [
              'merchant',
              'create',
              '--name',
              'Disable',
              '--payout-currency',
              'THB',
              '--payout-account',
              '1234567890',
              '--json',
            ],
            env,
          )
        ).stdout,
      );
      await eventually(async () => (await initiate(created, 'dis-0')).status === 200, PROPAGATION_LIMIT_MS);
      const disabled = await runCliProcess(['merchant', 'disable', created.merchantid], env);
      assert.equal(disabled.code, 0, disabled.stderr);
      let i = 0;
      await eventually(async () => (await initiate(created, `dis-${++i}`)).status === 403, PROPAGATION_LIMIT_MS);
      const refused = await initiate(created, 'dis-x');
      assert.equal(refused.body.error_code_tag, 'MERCHANT_DISABLED');
      assert.equal(refused.body.responsecode, '1001');
      assert.equal((await runCliProcess(['merchant', 'enable', created.merchantid], env)).code, 0);
      await eventually(async () => (await initiate(created, `en-${++i}`)).status === 200, PROPAGATION_LIMIT_MS);
    });

    test('rotate-webhook-secret prints a new secret and keeps the old one valid for the overlap', async () => {
      const rotated = await runCliProcess(['merchant', 'rotate-webhook-secret', 'cli-shop', '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const body = JSON.parse(rotated.stdout);
      assert.match(body.webhook_secret, /^whsec_/);
      assert.ok(Date.parse(body.previous_valid_until) > Date.now());
    });

    test(
      'CLI mistakes: unknown merchant, ' + 'missing flag and bad currency exit non-zero with a clear message',
      async () => {
        const unknown = await runCliProcess(['merchant', 'disable', 'nobody'], env);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /No merchant with id 'nobody'/);
        const missing = await runCliProcess(['merchant', 'create', '--name', 'X', '--payout-currency', 'THB'], env);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /--payout-account is required/);
        const badCurrency = await runCliProcess(
          ['merchant', 'create', '--name', 'X', '--payout-currency', 'baht', '--payout-account', '1234567890'],
          env,
        );
        assert.equal(badCurrency.code, 1);
        assert.match(badCurrency.stderr, /payout-currency/);
        for (const r of [unknown, missing, badCurrency]) assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      },
    );

    test('racing identical initiations over real HTTP create exactly one transaction', async () => {
      const creds = JSON.parse(
        (
          await runCliProcess(
            [
              'merchant',
              'create',
              '--name',
              'Race',
              '--payout-currency',
              'THB',
              '--payout-account',
              '1234567890',
              '--json',
            ],
            env,
          )
        ).stdout,
      );
      await eventually(async () => (await initiate(creds, 'race-warm')).status === 200, PROPAGATION_LIMIT_MS);
      const body = JSON.stringify({ ...JSON.parse(fixture('string-amount.json', creds)), trackid: 'race-http' });
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => httpPost(`${gateway.url}/transaction/s2s`, body)),
      );
      assert.ok(
        answers.every((a) => a.status === 200),
        JSON.stringify(answers.map((a) => a.status)),
      );
      assert.equal(new Set(answers.map((a) => JSON.stringify(a.body))).size, 1, 'every caller gets the same body');
      assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 24);
    });
  });
}
