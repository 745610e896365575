// The client package as a merchant gets it: packed with `npm pack`, installed from the tarball
// in a clean directory, used from plain JavaScript under Node 20 (the system node) and Node 24
// against a running gateway: initiate, status, sandbox completion, a real notification verified,
// balance, and the typed errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateWebhookSecret } from '../../src/domain/webhook-signature.ts';
import { startRunningGateway, type RunningGateway } from '../support/running-gateway.ts';
import { node20, packAndInstall, runScript, type Installed } from '../support/client-package.ts';

const NODE20 = node20();
const node20Skip = NODE20
  ? false
  : process.env.CI === 'true'
    ? false
    : 'no Node 20 found (/usr/bin/node or NODE20_BIN); CI requires it';

describe('@thaiqr-gateway/client, packed and installed', () => {
  let gw: RunningGateway;
  let installed: Installed;

  before(async () => {
    installed = packAndInstall();
    gw = await startRunningGateway();
  });
  after(async () => {
    await gw?.close();
    installed?.cleanup();
  });

  test('the tarball holds compiled JavaScript and declarations only, and the package has no dependencies', () => {
    assert.ok(
      installed.files.includes('dist/index.js') && installed.files.includes('dist/index.d.ts'),
      installed.files.join(', '),
    );
    assert.ok(
      installed.files.every((f) => f === 'package.json' || f === 'README.md' || f.startsWith('dist/')),
      installed.files.join(', '),
    );
    assert.ok(!installed.files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')));
    const manifest = JSON.parse(
      readFileSync(join(installed.dir, 'node_modules/@thaiqr-gateway/client/package.json'), 'utf8'),
    );
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.type, 'module');
    const dts = readFileSync(join(installed.dir, 'node_modules/@thaiqr-gateway/client/dist/index.d.ts'), 'utf8');
    assert.doesNotMatch(dts, /from '\.\/[^']+\.ts'/, 'declarations import .js paths');
    assert.match(dts, /export declare class GatewayClient/);
  });

  for (const [label, nodePath, skip] of [
    ['Node 20', NODE20, node20Skip],
    ['Node 24', process.execPath, false],
  ] as const) {
    test(
      `${label}: initiate, status, sandbox complete, verified notification, balance, typed errors`,
      { skip },
      async () => {
        const other = generateWebhookSecret();
        const trackid = `order-${label.replace(' ', '')}-${Date.now()}`;
        const run = await runScript(installed, nodePath ?? 'missing', 'client-consumer.mjs', {
          GATEWAY_URL: gw.url,
          MERCHANT_ID: gw.creds.merchantid,
          PASSWORD: gw.creds.password,
          WEBHOOK_SECRET: gw.creds.webhook_secret,
          OTHER_SECRET: other,
          TRACKID: trackid,
        });
        assert.equal(run.code, 0, run.stderr);
        const r = JSON.parse(run.stdout);
        assert.match(r.node, label === 'Node 20' ? /^v20\./ : /^v24\./);

        assert.equal(r.payment.responsecode, '9');
        assert.equal(r.payment.trackid, trackid);
        assert.match(r.payment.redirectUrl, /\/transaction\/Redirect\?ID=/);
        assert.equal(r.processing.result, 'Processing');
        assert.equal(r.byTrackid.transactionid, r.payment.transactionid);
        assert.equal(r.completed.result, 'CAPTURED');
        assert.equal(r.completed.bill_amount, '1000.00');

        assert.deepEqual(r.notification.result, { ok: true });
        assert.deepEqual(r.notification.withOtherOnly, { ok: false, reason: 'no signature matched' });
        assert.equal(r.notification.tampered.ok, false);
        assert.equal(r.notification.body.transactionid, r.payment.transactionid);
        assert.equal(r.notification.body.result, 'CAPTURED');

        // The balance the client read is what the gateway answers a raw request.
        const raw = await (
          await fetch(`${gw.url}/GatewayInstaPay/QueryPayoutBalance`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ merchantid: gw.creds.merchantid, password: gw.creds.password }),
          })
        ).json();
        assert.equal(r.balance.balanceAmt, (raw as { balanceAmt: string }).balanceAmt);
        assert.match(r.balance.balanceAmt, /^\d+\.\d{4}$/);
        assert.notEqual(r.balance.balanceAmt, '0.0000');

        assert.deepEqual(
          { ...r.wrongPassword, requestId: typeof r.wrongPassword.requestId },
          {
            isGatewayError: true,
            name: 'GatewayError',
            httpStatus: 401,
            responsecode: '1000',
            errorCodeTag: 'INVALID_CREDENTIALS',
            errorText: 'The merchantid or password is not correct.',
            requestId: 'string',
          },
        );
        assert.equal(r.unknown.httpStatus, 404);
        assert.equal(r.unknown.errorCodeTag, 'NOT_FOUND');
        assert.equal(r.otherService.httpStatus, 404, 'serviceName changes the balance path');
      },
    );
  }
});
