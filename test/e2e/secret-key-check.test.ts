// A deployment whose instances or CLI use different GATEWAY_SECRET_KEYs must not start and answer
// every merchant 401. The store remembers a check value of the first key; servers and CLI runs with
// another key refuse with one sentence, exit 2, no stack trace (docs/deployment.md "The secret
// key"). On SQLite one server runs per file (docs/operations.md "One SQLite file, one server"), so
// there the second server is tried with the first one stopped, and with the same key it is refused
// for the lock while the CLI works beside the first.
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

const OTHER_KEY_HEX = 'c3'.repeat(32);
const REFUSAL = /GATEWAY_SECRET_KEY differs from the key this database was first started with/;

for (const { dialect, skip } of await testDialects()) {
  describe(`one secret key per deployment [${dialect}]`, { skip }, () => {
    let first: GatewayProcess;
    let drop: () => Promise<void>;
    let base: Record<string, string>;
    before(async () => {
      const db = await createTestDatabase(dialect);
      drop = db.drop;
      base = { DATABASE_URL: db.databaseUrl, CREATE_DEMO_MERCHANT: 'false', MERCHANT_REFRESH: '100ms' };
      first = await startGatewayProcess({ ...base, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX });
    });
    after(async () => {
      await first?.stop();
      await killLeftoverGateways();
      await drop?.();
    });

    test('a second server with another key refuses to start with one sentence saying why', async () => {
      if (dialect === 'sqlite') await first.stop(); // else the file's lock would refuse it first
      const second = await runCliProcess(
        ['serve'],
        { ...base, GATEWAY_SECRET_KEY: OTHER_KEY_HEX },
        'src/cli/index.ts',
        20_000,
      );
      assert.equal(second.code, 2, `exit 2 (configuration)\n${second.stderr}`);
      assert.match(second.stderr, REFUSAL);
      assert.match(second.stderr, /same key/, 'it says how to fix it');
      assert.doesNotMatch(second.stderr, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(second.stdout, /listening/);
      if (dialect === 'sqlite') first = await startGatewayProcess({ ...base, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX });
    });

    test('the CLI with another key refuses too and changes nothing', async () => {
      const refused = await runCliProcess(
        [
          'merchant',
          'create',
          '--name',
          'Wrong Key',
          '--payout-currency',
          'THB',
          '--payout-account',
          '1234567890',
          '--id',
          'wrong-key',
          '--json',
        ],
        { ...base, GATEWAY_SECRET_KEY: OTHER_KEY_HEX },
      );
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, REFUSAL);
      assert.equal(refused.stdout, '', 'no credentials printed');
      const listed = await runCliProcess(['merchant', 'list', '--json'], {
        ...base,
        GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
      });
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        JSON.parse(listed.stdout).merchants.map((m: { merchantid: string }) => m.merchantid),
        [],
        'the refused run created no merchant',
      );
    });

    test('a second server and the CLI with the same key work with the first server', async () => {
      const created = await runCliProcess(
        [
          'merchant',
          'create',
          '--name',
          'Shared Key',
          '--payout-currency',
          'THB',
          '--payout-account',
          '1234567890',
          '--json',
        ],
        { ...base, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX },
      );
      assert.equal(created.code, 0, created.stderr);
      const creds = JSON.parse(created.stdout);
      if (dialect === 'sqlite') {
        const refused = await runCliProcess(['serve'], { ...base, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX });
        assert.equal(refused.code, 1, refused.stderr);
        assert.match(refused.stderr, new RegExp(`Another gateway \\(pid ${first.child.pid}\\)`));
        await eventually(
          async () =>
            (await httpPost(`${first.url}/transaction/s2s`, fixture('string-amount.json', creds))).status === 200,
          5000,
          100,
        );
        return;
      }
      const second = await startGatewayProcess({ ...base, GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX });
      try {
        const paid = await httpPost(`${second.url}/transaction/s2s`, fixture('string-amount.json', creds));
        assert.equal(paid.status, 200, JSON.stringify(paid.body));
        // The first instance learns of the new merchant on its next refresh (100 ms here).
        await eventually(
          async () =>
            (await httpPost(`${first.url}/transaction/status`, { ...creds, transactionid: paid.body.transactionid }))
              .status === 200,
          5000,
          100,
        );
      } finally {
        assert.equal(await second.stop(), 0);
      }
    });
  });
}
