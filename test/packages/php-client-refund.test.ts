// The PHP client's refund against a running gateway (POST /transaction/refund, docs/api.md).
// Kept apart from php-client.test.ts: it needs a gateway that has refunds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRunningGateway, type RunningGateway } from '../support/running-gateway.ts';
import { phpSkipReason, runPhp } from '../support/php.ts';

const skip = phpSkipReason();

describe('PHP client refund', { skip }, () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startRunningGateway();
  });
  after(async () => gw?.close());

  test('a partial refund, its replay, and a refund over what is left', async () => {
    const run = await runPhp('php-refund.php', {
      GATEWAY_URL: gw.url,
      MERCHANT_ID: gw.creds.merchantid,
      PASSWORD: gw.creds.password,
      TRACKID: `php-refund-${Date.now()}`,
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const r = JSON.parse(run.stdout);
    assert.equal(r.first.responsecode, '0');
    assert.match(r.first.refundid, /^rfd_/);
    assert.equal(r.first.refunded_amount, '100.00');
    assert.equal(r.first.refundable_amount, '900.00');
    assert.equal(r.again.refundid, r.first.refundid, 'the same request refunds once');
    assert.deepEqual(r.tooMuch, { httpStatus: 409, responsecode: '3004', errorCodeTag: 'REFUND_EXCEEDS_AVAILABLE' });
    assert.equal(r.status.refunded_amount, '100.00');
  });
});
