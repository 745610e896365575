// Refunds go through the processor connector (docs/api.md "Refund"), on both stores: the connector
// is asked before anything is written, with a refund id that stays the same when the merchant
// retries the same request (a live processor deduplicates on it); a refusal writes nothing and
// reaches the merchant as the connector's error; its reference is stored. A connector that declares
// it cannot refund (capabilities.refunds 'none') is never asked: the refusal names the bank-transfer
// path (domain/transfer-refund.ts), and that path records the refund whichever connector runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { testDialects } from '../support/dialects.ts';
import type { Dialect } from '../../src/store/engine.ts';
import { LogCapture, post, testConfig } from '../support/test-gateway.ts';
import { createTestStore, type TestStore } from '../support/test-store.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type Services } from '../../src/compose/services.ts';
import { buildApp } from '../../src/http/build-app.ts';
import { httpDepsFrom } from '../../src/compose/http-deps.ts';
import { GatewayError } from '../../src/domain/errors.ts';
import type { ProcessorCapabilities, ProcessorConnector, RefundRequest } from '../../src/app/ports/processor.ts';
import { CLI_RECORDER } from '../../src/app/record-transfer-refund.ts';
import { REFUND_BY_TRANSFER_HINT } from '../../src/domain/transfer-refund.ts';

/** A processor double: records every refund asked for; refuses while `refuse` is set. */
class RecordingProcessor implements ProcessorConnector {
  readonly name: string;
  readonly capabilities: ProcessorCapabilities;
  constructor(name = 'recording-bank', refunds: ProcessorCapabilities['refunds'] = 'partial') {
    this.name = name;
    this.capabilities = { live: true, qr: 'gateway', cancel: false, refunds, notifications: false };
  }
  readonly asked: RefundRequest[] = [];
  refuse: GatewayError | undefined;
  async refund(request: RefundRequest) {
    this.asked.push(request);
    if (this.refuse) throw this.refuse;
    return { reference: `bank-${this.asked.length}` };
  }
  // Refunds are all this double answers; a test that reached these would be testing the wrong thing.
  attemptReference(): never {
    throw new Error('not used by the refund tests');
  }
  createPayment(): never {
    throw new Error('not used by the refund tests');
  }
  queryPayment(): never {
    throw new Error('not used by the refund tests');
  }
  async cancelPayment() {
    return 'cancelled' as const;
  }
  parseNotification() {
    return { ok: false as const, reason: 'not used by the refund tests' };
  }
}

/** A gateway (real store, HTTP app) whose processor is `processor`, with one merchant named `name`. */
async function gatewayWith(dialect: Dialect, processor: ProcessorConnector, name: string) {
  const testStore = await createTestStore(dialect);
  const config = testConfig({ DATABASE_URL: testStore.databaseUrl });
  const logger = createLogger('warn', new LogCapture());
  const services = createServices(config, testStore.store, config.secretKey!, { logger, connector: processor });
  const app = await buildApp(httpDepsFrom(services), { logger });
  const creds = await services.manageMerchants.create({
    name,
    payoutCurrency: 'THB',
    payoutAccount: '4111111111119012',
  });
  await services.directory.refresh();
  return { testStore, services, app, creds };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`refunds through the processor connector [${dialect}]`, { skip }, () => {
    let testStore: TestStore;
    let services: Services;
    let app: FastifyInstance;
    let creds: { merchantid: string; password: string };
    const processor = new RecordingProcessor();

    before(async () => {
      ({ testStore, services, app, creds } = await gatewayWith(dialect, processor, 'Bank Shop'));
    });
    after(async () => {
      await app?.close();
      await testStore?.cleanup();
    });

    async function paid(amount: string): Promise<string> {
      const init = await post({ app }, '/transaction/s2s', {
        merchantid: creds.merchantid,
        password: creds.password,
        payment_method: { type: 'THAI_DEBIT' },
        trackid: `bank-${Math.random().toString(36).slice(2)}`,
        bill_currencycode: 'THB',
        bill_amount: amount,
        bill_country: 'TH',
        bill_customerip: '203.0.113.7',
        bill_email: 'b@example.com',
        returnUrl: 'https://shop.example/r',
        serverUrl: 'https://shop.example/n',
        payer_account_no: '1234567890',
        payer_account_name: 'A B',
        payer_bank_code: 'Bangkok Bank',
      });
      await services.complete.execute(init.body.transactionid, 'confirm');
      return init.body.transactionid;
    }

    test(
      'the connector is asked first; a refusal writes nothing; ' +
        'a retry sends the same refund id; the reference is stored',
      async () => {
        const txid = await paid('300');
        processor.refuse = new GatewayError(
          'REFUND_NOT_ALLOWED',
          'The bank refused the refund: the payer account is closed.',
        );
        const body = {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: txid,
          bill_amount: '100',
          bill_currencycode: 'THB',
        };
        const refused = await post({ app }, '/transaction/refund', body, { 'idempotency-key': 'rf-1' });
        assert.equal(refused.status, 409);
        assert.equal(refused.body.responsecode, '3003');
        assert.match(refused.body.error_text, /bank refused/);
        assert.equal((await services.refunds.ofTransaction(txid)).length, 0);
        assert.equal((await services.transactions.findById(creds.merchantid, txid))?.refundedMinor, 0n);

        processor.refuse = undefined;
        const ok = await post({ app }, '/transaction/refund', body, { 'idempotency-key': 'rf-1' });
        assert.equal(ok.status, 200, ok.raw);
        assert.equal(processor.asked.length, 2);
        assert.equal(
          processor.asked[0]!.refundId,
          processor.asked[1]!.refundId,
          'the same request keeps its refund id at the processor',
        );
        assert.equal(processor.asked[1]!.refundId, ok.body.refundid);
        assert.deepEqual(
          { ...processor.asked[1], refundId: undefined },
          {
            refundId: undefined,
            transactionId: txid,
            merchantId: creds.merchantid,
            amountMinor: 1_000_000n,
            currency: 'THB',
            reason: null,
            paymentAmountMinor: 3_000_000n,
            refundedMinor: 0n,
            paidAt: (await services.transactions.findById(creds.merchantid, txid))!.completedAt,
            paymentReference: null,
          },
        );
        const [stored] = await services.refunds.ofTransaction(txid);
        assert.equal(stored?.processor, 'recording-bank');
        assert.equal(stored?.processorReference, 'bank-2');

        // A replay is answered from the store: the processor is not asked again.
        const replay = await post({ app }, '/transaction/refund', body, { 'idempotency-key': 'rf-1' });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(processor.asked.length, 2);
      },
    );

    test('refused before the processor is asked: more than refundable, or a payment not SUCCESS', async () => {
      const before = processor.asked.length;
      const txid = await paid('100');
      assert.equal(
        (
          await post({ app }, '/transaction/refund', {
            merchantid: creds.merchantid,
            password: creds.password,
            transactionid: txid,
            bill_amount: '100.01',
            bill_currencycode: 'THB',
          })
        ).body.responsecode,
        '3004',
      );
      const processing = await post({ app }, '/transaction/s2s', {
        merchantid: creds.merchantid,
        password: creds.password,
        payment_method: { type: 'THAI_DEBIT' },
        trackid: `open-${Math.random().toString(36).slice(2)}`,
        bill_currencycode: 'THB',
        bill_amount: '100',
        bill_country: 'TH',
        bill_customerip: '203.0.113.7',
        bill_email: 'b@example.com',
        returnUrl: 'https://shop.example/r',
        serverUrl: 'https://shop.example/n',
        payer_account_no: '1234567890',
        payer_account_name: 'A B',
        payer_bank_code: 'SCB',
      });
      assert.equal(
        (
          await post({ app }, '/transaction/refund', {
            merchantid: creds.merchantid,
            password: creds.password,
            transactionid: processing.body.transactionid,
            bill_amount: '1',
            bill_currencycode: 'THB',
          })
        ).body.responsecode,
        '3003',
      );
      assert.equal(processor.asked.length, before);
    });
  });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`a connector that cannot refund (capabilities.refunds 'none') [${dialect}]`, { skip }, () => {
    let testStore: TestStore;
    let services: Services;
    let app: FastifyInstance;
    let creds: { merchantid: string; password: string };
    const processor = new RecordingProcessor('no-refunds-bank', 'none');

    before(async () => {
      ({ testStore, services, app, creds } = await gatewayWith(dialect, processor, 'Transfer Shop'));
    });
    after(async () => {
      await app?.close();
      await testStore?.cleanup();
    });

    test('the API refund: REFUND_NOT_ALLOWED naming the bank-transfer path, the connector never asked', async () => {
      const init = await post({ app }, '/transaction/s2s', {
        merchantid: creds.merchantid,
        password: creds.password,
        payment_method: { type: 'THAI_DEBIT' },
        trackid: `none-${Math.random().toString(36).slice(2)}`,
        bill_currencycode: 'THB',
        bill_amount: '300',
        bill_country: 'TH',
        bill_customerip: '203.0.113.7',
        bill_email: 'b@example.com',
        returnUrl: 'https://shop.example/r',
        serverUrl: 'https://shop.example/n',
        payer_account_no: '1234567890',
        payer_account_name: 'A B',
        payer_bank_code: 'Bangkok Bank',
      });
      const txid = init.body.transactionid as string;
      await services.complete.execute(txid, 'confirm');
      const balance = await services.ledger.balance({
        kind: 'merchant_payout',
        merchantId: creds.merchantid,
        currency: 'THB',
      });

      const refused = await post({ app }, '/transaction/refund', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: txid,
        bill_amount: '100',
        bill_currencycode: 'THB',
      });
      assert.equal(refused.status, 409, refused.raw);
      assert.equal(refused.body.error_code_tag, 'REFUND_NOT_ALLOWED');
      assert.equal(refused.body.responsecode, '3003');
      assert.equal(
        refused.body.error_text,
        "This payment's processor (no-refunds-bank) cannot make refunds through its API; nothing was refunded. " +
          REFUND_BY_TRANSFER_HINT,
      );
      assert.match(
        refused.body.error_text,
        /by bank transfer .* in the console \(the payment page\) or with `gateway refund record`/,
      );
      assert.equal(processor.asked.length, 0, 'refused before the connector was asked');
      assert.equal((await services.refunds.ofTransaction(txid)).length, 0);

      // The path it names: the transfer (sent by the gateway's operator), recorded; the connector is
      // still not asked, and clearing stays as the processor's settlement has it.
      const clearingBefore = await services.ledger.balance({
        kind: 'gateway_clearing',
        merchantId: null,
        currency: 'THB',
      });
      const recorded = await services.recordTransfer.record({
        merchantId: creds.merchantid,
        transactionId: txid,
        amount: '100',
        transferReference: 'SCB-TR-0001',
        paidBy: 'gateway',
        reason: null,
        by: CLI_RECORDER,
      });
      assert.equal(recorded.response.refunded_amount, '100.00');
      assert.equal(processor.asked.length, 0);
      const [stored] = await services.refunds.ofTransaction(txid);
      assert.deepEqual(
        [stored?.processor, stored?.processorReference, stored?.transferPaidBy],
        ['bank_transfer', 'SCB-TR-0001', 'gateway'],
      );
      assert.equal(
        await services.ledger.balance({ kind: 'merchant_payout', merchantId: creds.merchantid, currency: 'THB' }),
        balance - 1_000_000n,
      );
      assert.equal(
        await services.ledger.balance({ kind: 'gateway_clearing', merchantId: null, currency: 'THB' }),
        clearingBefore,
      );
    });
  });
}
