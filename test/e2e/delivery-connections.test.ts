// The delivery worker over keep-alive connections, on both stores: a pooled connection that
// turns out stale neither loses a notification nor records a failure against the merchant, and
// neither the merchant directory's copy nor the memo of opened webhook secrets outlives a rotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, type MerchantCredentials } from '../support/test-gateway.ts';
import {
  Receiver,
  answer,
  completePayment,
  eventOf,
  independentSignature,
  signaturesOf,
  startDeliveryGateway,
  type DeliveryGateway,
} from '../support/delivery.ts';

/**
 * An endpoint that drops the second request on every connection unanswered, as a server closing an idle keep-alive
 * connection would.
 */
async function closingEndpoint(): Promise<{
  url: string;
  ids: string[];
  dropped: () => number;
  close: () => Promise<void>;
}> {
  const ids: string[] = [];
  const perSocket = new Map<Socket, number>();
  let dropped = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const nth = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, nth);
      ids.push(String(req.headers['webhook-id']));
      if (nth === 2) {
        dropped++;
        req.socket.destroy();
      } else {
        res.end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids,
    dropped: () => dropped,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`delivery over keep-alive connections [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let creds: MerchantCredentials;
    before(async () => {
      d = await startDeliveryGateway(dialect, { DELIVERY_TIMEOUT: '5s', DELIVERY_LEASE: '30s' });
      creds = await addMerchant(d.gw);
    });
    after(() => d?.close());

    test(
      'a stale pooled connection neither loses a notification ' + 'nor records a failure: one attempt, delivered',
      async () => {
        const endpoint = await closingEndpoint();
        try {
          const first = await completePayment(d.gw, creds, endpoint.url);
          await d.worker.idle();
          assert.equal((await eventOf(d.outbox, first.transactionid)).status, 'delivered');
          // Sent while the first one's connection is pooled: it goes out on it and is dropped.
          const second = await completePayment(d.gw, creds, endpoint.url);
          await d.worker.idle();
          assert.equal(endpoint.dropped(), 1, 'the second notification met the closing connection');

          const event = await eventOf(d.outbox, second.transactionid);
          assert.equal(event.status, 'delivered');
          const attempts = await d.outbox.attempts(event.id);
          assert.equal(attempts.length, 1, 'the stale connection is not an attempt of its own');
          assert.equal(attempts[0]!.httpStatus, 200);
          assert.equal(attempts[0]!.error, null);
          assert.deepEqual(
            endpoint.ids.filter((id) => id === event.id),
            [event.id, event.id],
            'sent again on a new connection with the same webhook-id (at-least-once)',
          );
        } finally {
          await endpoint.close();
        }
      },
    );

    test(
      'a secret rotated after deliveries signs the next notification once the ' +
        'merchant directory has it (the opened-secret memo follows the stored secret)',
      async () => {
        const receiver = await Receiver.start();
        try {
          const merchant = await addMerchant(d.gw);
          const url = receiver.on('/hook/rotating', answer(200));
          await completePayment(d.gw, merchant, url);
          await receiver.waitFor(
            () => receiver.to('/hook/rotating').length === 1,
            'the notification before the rotation',
          );
          const before = receiver.to('/hook/rotating')[0]!;
          assert.deepEqual(signaturesOf(before).length, 1);

          const rotated = await d.gw.services.manageMerchants.rotateWebhookSecret(merchant.merchantid);
          // as the console does after a change, and the timer every MERCHANT_REFRESH
          await d.gw.services.directory.refresh();
          const paid = await completePayment(d.gw, merchant, url);
          await receiver.waitFor(
            () => receiver.to('/hook/rotating').length === 2,
            'the notification after the rotation',
          );
          const got = receiver.to('/hook/rotating')[1]!;
          const id = (await eventOf(d.outbox, paid.transactionid)).id;
          const ts = String(got.headers['webhook-timestamp']);
          assert.deepEqual(signaturesOf(got), [
            independentSignature(rotated.webhook_secret, id, ts, got.body),
            independentSignature(merchant.webhook_secret, id, ts, got.body),
          ]);
        } finally {
          await receiver.close();
        }
      },
    );
  });
}
