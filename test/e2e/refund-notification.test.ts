// The refund notification (docs/notifications.md "Refund notifications") delivered for real, on
// both stores: a second signed event to the payment's serverUrl through the same outbox and worker,
// after the result event, with its own webhook-id; a handler written only for payment results (the
// WooCommerce plugin's checks) takes it for neither a capture nor a failure. A refund recorded as
// paid by bank transfer (app/record-transfer-refund.ts) sends the same notification the same way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, post, type MerchantCredentials } from '../support/test-gateway.ts';
import {
  completePayment,
  independentSignature,
  Receiver,
  signaturesOf,
  startDeliveryGateway,
  type DeliveryGateway,
} from '../support/delivery.ts';
import { CLI_RECORDER } from '../../src/app/record-transfer-refund.ts';

/** What a payment-only handler does with a notification (the plugin's checks). */
function paymentOnlyHandler(body: Record<string, unknown>): 'complete' | 'fail' | 'ignore' {
  if (
    body.type === 'valid' &&
    (body.result === 'CAPTURED' || body.result === 'Success' || body.responsecode === '0' || body.responsecode === 0)
  )
    return 'complete';
  if (body.result === 'Not Successful' || body.responsecode === '6') return 'fail';
  return 'ignore';
}

for (const { dialect, skip } of await testDialects()) {
  describe(`refund notification [${dialect}]`, { skip, timeout: 60_000 }, () => {
    let receiver: Receiver;
    let dg: DeliveryGateway;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      dg = await startDeliveryGateway(dialect);
      creds = await addMerchant(dg.gw);
    });
    after(async () => {
      await dg?.close();
      await receiver?.close();
    });

    test(
      'delivered signed to serverUrl after the result, ' + 'with event_type "refund" and its own webhook-id',
      async () => {
        const url = receiver.on('/wc-api/notify', (res) => res.writeHead(200).end('ok'));
        const p = await completePayment(dg.gw, creds, url, { amount: '150' });
        await receiver.waitFor(() => receiver.to('/wc-api/notify').length === 1, 'the result notification');
        const res = await post(dg.gw, '/transaction/refund', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: p.transactionid,
          tranid: p.transactionid,
          trackid: 'somchai@example.co.th',
          bill_amount: 150.0,
          bill_currencycode: 'THB',
          reason: 'returned',
        });
        assert.equal(res.status, 200, res.raw);
        await receiver.waitFor(() => receiver.to('/wc-api/notify').length === 2, 'the refund notification');

        const [resultMsg, refundMsg] = receiver.to('/wc-api/notify');
        const result = JSON.parse(resultMsg!.body.toString());
        const refund = JSON.parse(refundMsg!.body.toString());
        assert.equal(paymentOnlyHandler(result), 'complete');
        assert.equal(
          paymentOnlyHandler(refund),
          'ignore',
          'a payment-only handler neither completes nor fails the order again',
        );
        assert.equal(refund.event_type, 'refund');
        assert.equal(refund.refundid, res.body.refundid);
        assert.equal(refund.trackid, p.trackid, "the payment's trackid, so the shop finds its order");
        assert.equal(refund.reference, 'somchai@example.co.th');
        assert.equal(refund.bill_amount, '150.00');
        assert.equal(refund.refundable_amount, '0.00');
        const id = String(refundMsg!.headers['webhook-id']);
        assert.equal(id, refund.event_id);
        assert.notEqual(id, resultMsg!.headers['webhook-id']);
        const ts = String(refundMsg!.headers['webhook-timestamp']);
        assert.deepEqual(signaturesOf(refundMsg!), [
          independentSignature(creds.webhook_secret, id, ts, refundMsg!.body),
        ]);
        await dg.worker.idle();
        const event = await dg.outbox.findById(id);
        assert.equal(event?.status, 'delivered');
        assert.equal(event?.refundId, res.body.refundid);
      },
    );

    test('a refund the merchant paid by bank transfer, recorded: the same signed refund notification', async () => {
      const url = receiver.on('/shop/transfer-notify', (res) => res.writeHead(200).end('ok'));
      const p = await completePayment(dg.gw, creds, url, { amount: '300' });
      await receiver.waitFor(() => receiver.to('/shop/transfer-notify').length === 1, 'the result notification');
      const recorded = await dg.gw.services.recordTransfer.record({
        merchantId: creds.merchantid,
        transactionId: p.transactionid,
        amount: '120.50',
        transferReference: 'FT26010577Q',
        // The merchant paid from its own account: no ledger entry, and still the notification.
        paidBy: 'merchant',
        reason: 'paid back by transfer',
        by: CLI_RECORDER,
      });
      await receiver.waitFor(() => receiver.to('/shop/transfer-notify').length === 2, 'the refund notification');
      const message = receiver.to('/shop/transfer-notify')[1]!;
      const refund = JSON.parse(message.body.toString());
      assert.equal(paymentOnlyHandler(refund), 'ignore');
      assert.deepEqual(
        [refund.event_type, refund.refundid, refund.trackid, refund.bill_amount, refund.refundable_amount],
        ['refund', recorded.refund.id, p.trackid, '120.50', '179.50'],
      );
      assert.equal(refund.reason, 'paid back by transfer');
      const id = String(message.headers['webhook-id']);
      const ts = String(message.headers['webhook-timestamp']);
      assert.deepEqual(signaturesOf(message), [independentSignature(creds.webhook_secret, id, ts, message.body)]);
      await dg.worker.idle();
      assert.equal((await dg.outbox.findById(id))?.status, 'delivered');
    });
  });
}
