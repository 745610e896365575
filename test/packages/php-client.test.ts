// packages/php/ThaiQrGateway.php under Debian's php-cli against a running gateway, over curl and
// over PHP streams: initiate, status, sandbox completion, balance, typed errors, and verification
// of a notification the gateway really sent (headers as PHP's $_SERVER has them).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateWebhookSecret } from '../../src/domain/webhook-signature.ts';
import { startRunningGateway, type RunningGateway } from '../support/running-gateway.ts';
import { Receiver } from '../support/delivery.ts';
import { phpSkipReason, runPhp } from '../support/php.ts';

const skip = phpSkipReason();

describe('PHP client', { skip }, () => {
  let gw: RunningGateway;
  let receiver: Receiver;

  before(async () => {
    gw = await startRunningGateway();
    receiver = await Receiver.start();
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
  });

  for (const transport of ['curl', 'stream']) {
    test(`${transport}: initiate, status, sandbox complete, balance, errors; the notification verifies`, async () => {
      const trackid = `php-${transport}-${Date.now()}`;
      const path = `/php-${transport}`;
      const notifyUrl = receiver.on(path, (res) => res.writeHead(200).end('ok'));
      const run = await runPhp('php-client.php', {
        GATEWAY_URL: gw.url,
        MERCHANT_ID: gw.creds.merchantid,
        PASSWORD: gw.creds.password,
        NOTIFY_URL: notifyUrl,
        TRACKID: trackid,
        TRANSPORT: transport,
      });
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.equal(run.stderr, '', 'no PHP warnings or notices');
      const r = JSON.parse(run.stdout);
      assert.equal(r.payment.responsecode, '9');
      assert.equal(r.payment.trackid, trackid);
      assert.equal(r.processing.result, 'Processing');
      assert.equal(r.byTrackid.transactionid, r.payment.transactionid);
      assert.equal(r.completed.result, 'CAPTURED');
      assert.match(r.balance.balanceAmt, /^\d+\.\d{4}$/);
      assert.notEqual(r.balance.balanceAmt, '0.0000');
      assert.deepEqual(
        { ...r.wrongPassword, requestId: typeof r.wrongPassword.requestId },
        {
          httpStatus: 401,
          responsecode: '1000',
          errorCodeTag: 'INVALID_CREDENTIALS',
          errorText: 'The merchantid or password is not correct.',
          requestId: 'string',
          message: 'The merchantid or password is not correct.',
        },
      );
      assert.equal(r.unknown.httpStatus, 404);
      assert.equal(r.unknown.errorCodeTag, 'NOT_FOUND');
      assert.equal(r.missingField.httpStatus, 400);
      assert.equal(r.missingField.errorCodeTag, 'MISSING_FIELD');

      await receiver.waitFor(() => receiver.requests.some((q) => q.path === path), 'the notification');
      const note = receiver.requests.find((q) => q.path === path)!;
      assert.equal(JSON.parse(note.body.toString('utf8')).transactionid, r.payment.transactionid);
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((n) => [n, note.headers[n]]),
      );
      const verify = await runPhp(
        'php-verify.php',
        { WEBHOOK_SECRET: gw.creds.webhook_secret, OTHER_SECRET: generateWebhookSecret() },
        JSON.stringify({ headers, body: note.body.toString('utf8') }),
      );
      assert.equal(verify.code, 0, verify.stderr);
      assert.deepEqual(JSON.parse(verify.stdout), {
        bothSecrets: true,
        rightSecret: true,
        otherOnly: 'no signature matched',
        tampered: 'no signature matched',
        anHourLater: 'timestamp too old',
        malformedSecret: 'malformed secret: expected whsec_<base64>',
        noHeaders: 'missing webhook-id header',
      });
    });
  }
});
