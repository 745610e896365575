// The client's refund call against a running gateway (POST /transaction/refund, docs/api.md).
// Kept apart from client.test.ts: it needs a gateway that has refunds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRunningGateway, type RunningGateway } from '../support/running-gateway.ts';
import { packAndInstall, runScript, type Installed } from '../support/client-package.ts';

describe('@thaiqr-gateway/client refund, packed and installed (Node 24)', () => {
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

  test('a partial refund, its replay, and a refund over what is left', async () => {
    const run = await runScript(installed, process.execPath, 'client-refund.mjs', {
      GATEWAY_URL: gw.url,
      MERCHANT_ID: gw.creds.merchantid,
      PASSWORD: gw.creds.password,
      TRACKID: `refund-${Date.now()}`,
    });
    assert.equal(run.code, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    assert.equal(r.first.responsecode, '0');
    assert.match(r.first.refundid, /^rfd_/);
    assert.equal(r.first.bill_amount, '100.00');
    assert.equal(r.first.refunded_amount, '100.00');
    assert.equal(r.first.refundable_amount, '900.00');
    assert.equal(r.again.refundid, r.first.refundid, 'the same request refunds once');
    assert.deepEqual(r.tooMuch, {
      isGatewayError: true,
      httpStatus: 409,
      responsecode: '3004',
      errorCodeTag: 'REFUND_EXCEEDS_AVAILABLE',
    });
    assert.equal(r.status.refunded_amount, '100.00');
  });
});
