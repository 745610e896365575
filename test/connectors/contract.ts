// The processor connector contract (docs/architecture.md "Connectors"): what every connector
// promises through app/ports/processor.ts, checked against each one over its real transport. The
// suite reads the connector's capabilities to decide what applies — a processor that builds the
// QR must create a verifiable one for the exact amount, report it paid after the customer paid,
// close it when it can cancel and leave it payable when it cannot; a 'void' processor must void a
// whole same-day payment once and refuse everything else without moving money; a 'partial' one
// must take a partial refund; a 'none' one must refuse every refund without moving money; a
// processor that notifies must send notifications that name the attempt. What a harness cannot do
// on the processor's side (pay, settle, look) is skipped with the reason.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessorConnector, RefundRequest } from '../../src/app/ports/processor.ts';
import { GatewayError } from '../../src/domain/errors.ts';
import { thaiQrIsFor, verifyThaiQrPayload } from '../../src/domain/thai-qr.ts';
import { CONTRACT_DAY, type ConnectorHarness, type ContractSubject } from '../support/connector-harnesses.ts';

const HOUR = 3_600_000;
let serial = 0;

/** A transaction id of our own, new per test. */
function newTransactionId(): string {
  return `0199c0de-0000-7000-8000-${String(++serial).padStart(12, '0')}`;
}

function refusedNotAllowed(error: unknown): boolean {
  return error instanceof GatewayError && error.tag === 'REFUND_NOT_ALLOWED' && /\w+ \w+/.test(error.message);
}

/**
 * Starts the subject's harness (so its capabilities decide which tests apply) and declares the
 * suite; the harness closes after it.
 */
export async function connectorContract(subject: ContractSubject): Promise<void> {
  const h: ConnectorHarness = await subject.start();
  const connector: ProcessorConnector = h.connector;
  const c = connector.capabilities;
  const canPay: Need = [h.pay !== undefined, 'the harness cannot pay at the processor'];
  const processorQr: Need = [c.qr === 'processor', "the gateway builds this connector's QR"];
  const stateful: Need = [h.stateful, 'the processor answers canned scenarios, not by state'];
  const cancels: Need = [c.cancel, 'the connector cannot cancel a QR'];
  const voids: Need = [c.refunds === 'void', `refunds are '${c.refunds}'`];
  const findsQrs: Need = [h.inquiry === 'qr', 'the processor finds payments, not QRs'];
  const findsPayments: Need = [h.inquiry === 'payments', 'the processor finds QRs by their reference'];
  describe(`connector contract: ${subject.name}`, () => {
    after(() => h.close());

    /** A new QR at the processor for the harness's amount, at 10:00 on the contract's day. */
    async function created(amountMinor = h.amountMinor) {
      h.setNow(CONTRACT_DAY);
      const createdAt = h.now();
      const transactionId = newTransactionId();
      const attemptId = connector.attemptReference('qr', `${transactionId}:1`);
      const qr = await connector.createPayment({
        transactionId,
        merchantId: 'M-CONTRACT',
        amountMinor,
        currency: 'THB',
        reference1: `REF${String(serial).padStart(10, '0')}`,
        attemptId,
      });
      return { transactionId, attemptId, qr, createdAt };
    }

    /** A QR the customer paid at 10:00. */
    async function paid() {
      const made = await created();
      const { txnNo } = await h.pay!(made.attemptId);
      return { ...made, txnNo, paidAt: h.now() };
    }

    function refundOf(made: { transactionId: string; attemptId: string }, overrides: Partial<RefundRequest> = {}) {
      return {
        refundId: `rfd_contract_${++serial}`,
        transactionId: made.transactionId,
        merchantId: 'M-CONTRACT',
        amountMinor: h.amountMinor,
        currency: 'THB',
        reason: null,
        paymentAmountMinor: h.amountMinor,
        refundedMinor: 0n,
        paidAt: CONTRACT_DAY,
        paymentReference: made.attemptId,
        ...overrides,
      } satisfies RefundRequest;
    }

    test('declares its capabilities, and they fit together', () => {
      assert.ok(connector.name.length > 0);
      assert.equal(typeof c.live, 'boolean');
      assert.ok(['gateway', 'processor'].includes(c.qr));
      assert.ok(['partial', 'void', 'none'].includes(c.refunds));
      // A void names the paid QR, which only a processor that built it knows.
      if (c.refunds === 'void') assert.equal(c.qr, 'processor');
      // Cancel-first expiry needs a QR at the processor to cancel.
      if (c.cancel) assert.equal(c.qr, 'processor');
    });

    test('attempt references: at most 15 letters and digits, the same for the same seed, new for another', () => {
      const seen = new Set<string>();
      for (const kind of ['qr', 'void'] as const) {
        for (const seed of ['0199c0de-0000-7000-8000-000000000001:1', '0199c0de-0000-7000-8000-000000000001:2']) {
          const reference = connector.attemptReference(kind, seed);
          assert.match(reference, /^[A-Z0-9]{1,15}$/);
          assert.equal(connector.attemptReference(kind, seed), reference, 'deterministic');
          seen.add(reference);
        }
      }
      assert.equal(seen.size, 4, 'kinds and seeds do not collide');
    });

    describe('the QR', () => {
      test(
        'gateway-built: the connector creates none',
        { skip: needs([c.qr === 'gateway', 'the processor builds the QR']) },
        async () => {
          await assert.rejects(
            connector.createPayment({
              transactionId: newTransactionId(),
              merchantId: 'M-CONTRACT',
              amountMinor: h.amountMinor,
              currency: 'THB',
              reference1: 'REF1',
              attemptId: connector.attemptReference('qr', 'x:1'),
            }),
          );
        },
      );

      test(
        'created for the exact amount, a valid Thai QR, alive for at most 10 minutes',
        { skip: needs(processorQr) },
        async () => {
          const { attemptId, qr } = await created();
          assert.equal(qr.reference, attemptId);
          const verified = verifyThaiQrPayload(qr.qrPayload);
          assert.ok(verified.ok, verified.errors.join('; '));
          assert.ok(thaiQrIsFor(verified, h.amountMinor), `tag 54 is ${verified.fields['54']}`);
          assert.ok(qr.expiresAt > h.now() && qr.expiresAt <= h.now() + 10 * 60_000, 'expires within 10 minutes');
          assert.ok(qr.issuer.length > 0);
        },
      );

      test(
        'a new QR is requested; paid once the customer paid, for the exact amount, with a payment number',
        {
          skip: needs(processorQr, canPay),
        },
        async () => {
          const { attemptId, createdAt } = await created();
          assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'requested');
          const { txnNo } = await h.pay!(attemptId);
          const status = await connector.queryPayment(attemptId, createdAt);
          assert.equal(status.state, 'paid');
          assert.equal(status.paidAmountMinor, h.amountMinor);
          assert.equal(status.currency, 'THB');
          assert.ok(status.processorTxnNo, 'a payment number');
          if (txnNo !== null) assert.equal(status.processorTxnNo, txnNo);
          assert.deepEqual(status.alsoPaid, [], 'paid once');
          if (status.payer !== null)
            for (const value of Object.values(status.payer)) assert.ok(value === null || typeof value === 'string');
        },
      );

      test(
        'an unpaid QR is reported expired once its life is over',
        { skip: needs(processorQr, stateful) },
        async () => {
          const { attemptId, createdAt } = await created();
          h.setNow(CONTRACT_DAY + 2 * HOUR);
          assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'expired');
        },
      );

      test(
        'a reference the processor never issued is not_found',
        {
          skip: needs(processorQr, stateful, findsQrs),
        },
        async () => {
          h.setNow(CONTRACT_DAY);
          assert.equal(
            (await connector.queryPayment(connector.attemptReference('qr', `${newTransactionId()}:9`), h.now())).state,
            'not_found',
          );
        },
      );

      test(
        'finding payments only: a reference nobody paid is requested while a QR could live, then expired',
        { skip: needs(processorQr, stateful, findsPayments) },
        async () => {
          h.setNow(CONTRACT_DAY);
          const reference = connector.attemptReference('qr', `${newTransactionId()}:9`);
          assert.equal((await connector.queryPayment(reference, h.now())).state, 'requested');
          assert.equal((await connector.queryPayment(reference, h.now() - 2 * HOUR)).state, 'expired');
        },
      );
    });

    describe('cancel', () => {
      test('an unpaid QR is cancelled, and stays so', { skip: needs(cancels) }, async () => {
        const { attemptId, createdAt } = await created();
        assert.equal(await connector.cancelPayment(attemptId), 'cancelled');
        assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'cancelled');
        if (h.stateful)
          assert.equal(await connector.cancelPayment(attemptId), 'final', 'a second cancel finds it closed');
      });

      test('a paid QR is not cancelled: the answer is paid', { skip: needs(cancels, canPay) }, async () => {
        const { attemptId, createdAt } = await paid();
        assert.equal(await connector.cancelPayment(attemptId), 'paid');
        assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'paid');
      });

      const noCancel: Need = [!c.cancel, 'the connector cancels'];
      test(
        'without cancel, a gateway-built QR has nothing to close: a no-op that never fails',
        { skip: needs(noCancel, [c.qr === 'gateway', 'the processor builds the QR']) },
        async () => {
          assert.equal(await connector.cancelPayment('ANY'), 'cancelled');
        },
      );

      test(
        "without cancel, a processor's QR is never said to be closed: cancelPayment refuses, the QR stays payable",
        { skip: needs(noCancel, processorQr, canPay) },
        async () => {
          const { attemptId, createdAt } = await created();
          // The use cases never call it (app/processor/close-payment.ts); claiming 'cancelled' would stop the checks.
          await assert.rejects(connector.cancelPayment(attemptId));
          assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'requested');
          await h.pay!(attemptId);
          assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'paid');
        },
      );
    });

    describe('refunds', () => {
      test("'void': the whole payment on the day it was paid is voided", { skip: needs(voids, canPay) }, async () => {
        const made = await paid();
        h.setNow(CONTRACT_DAY + HOUR);
        const accepted = await connector.refund(refundOf(made));
        assert.ok(accepted.reference, "the processor's reference");
        assert.equal((await connector.queryPayment(made.attemptId, made.createdAt)).state, 'voided');
        if (h.processorView) {
          const view = await h.processorView(made.attemptId);
          assert.equal(view.status, 'VOIDED');
          assert.equal(view.voidRequests, 1);
        }
      });

      test("'void': the same refund sent twice voids once", { skip: needs(voids, canPay, stateful) }, async () => {
        const made = await paid();
        const request = refundOf(made);
        const first = await connector.refund(request);
        const second = await connector.refund(request);
        assert.equal(second.reference, first.reference);
        if (h.processorView) assert.equal((await h.processorView(made.attemptId)).voidRequests, 1);
      });

      /** Refused with REFUND_NOT_ALLOWED and a sentence; no money moved at the processor. */
      async function refusedWithoutMoney(made: { attemptId: string }, request: RefundRequest): Promise<void> {
        await assert.rejects(connector.refund(request), refusedNotAllowed);
        if (h.processorView) {
          const view = await h.processorView(made.attemptId);
          assert.equal(view.status, 'PAID', 'still paid at the processor');
        }
      }

      test("'void': a partial refund is refused", { skip: needs(voids, canPay) }, async () => {
        const made = await paid();
        await refusedWithoutMoney(made, refundOf(made, { amountMinor: h.amountMinor - 10_000n }));
        assert.equal((await h.processorView?.(made.attemptId))?.voidRequests ?? 0, 0, 'no void was sent');
      });

      test("'void': a payment refunded in part before is refused", { skip: needs(voids, canPay) }, async () => {
        const made = await paid();
        await refusedWithoutMoney(
          made,
          refundOf(made, { amountMinor: h.amountMinor - 10_000n, refundedMinor: 10_000n }),
        );
      });

      test("'void': after the cut-off is refused", { skip: needs(voids, canPay) }, async () => {
        const made = await paid();
        h.setNow(CONTRACT_DAY + 11 * HOUR + 45 * 60_000); // 21:45
        await refusedWithoutMoney(made, refundOf(made));
        assert.equal((await h.processorView?.(made.attemptId))?.voidRequests ?? 0, 0, 'no void was sent');
      });

      test("'void': a payment of the day before is refused", { skip: needs(voids, canPay) }, async () => {
        const made = await paid();
        h.setNow(CONTRACT_DAY + 24 * HOUR);
        await refusedWithoutMoney(made, refundOf(made));
        assert.equal((await h.processorView?.(made.attemptId))?.voidRequests ?? 0, 0, 'no void was sent');
      });

      test(
        "'void': a settled payment is refused",
        { skip: needs(voids, canPay, [h.settle !== undefined, 'the harness cannot settle']) },
        async () => {
          const made = await paid();
          await h.settle!();
          await refusedWithoutMoney(made, refundOf(made));
        },
      );

      test("'void': a payment without a paid QR is refused", { skip: needs(voids) }, async () => {
        const made = { transactionId: newTransactionId(), attemptId: 'NONE' };
        await assert.rejects(connector.refund(refundOf(made, { paymentReference: null })), refusedNotAllowed);
      });

      test(
        "'none': every refund is refused with REFUND_NOT_ALLOWED and a sentence, and no money moves",
        { skip: needs([c.refunds === 'none', `refunds are '${c.refunds}'`]) },
        async () => {
          const made = h.pay
            ? await paid()
            : { transactionId: newTransactionId(), attemptId: 'NONE', createdAt: h.now() };
          for (const request of [
            refundOf(made),
            refundOf(made, { amountMinor: h.amountMinor / 2n }),
            refundOf(made, { paymentReference: null }),
          ])
            await assert.rejects(connector.refund(request), refusedNotAllowed);
          if (!h.pay) return;
          assert.equal((await connector.queryPayment(made.attemptId, made.createdAt)).state, 'paid', 'still paid');
          if (h.processorView) {
            const view = await h.processorView(made.attemptId);
            assert.equal(view.status, 'PAID', 'still paid at the processor');
            assert.equal(view.voidRequests, 0);
          }
        },
      );

      test(
        "'partial': a partial refund, then the rest, are accepted",
        {
          skip: needs([c.refunds === 'partial', `refunds are '${c.refunds}'`]),
        },
        async () => {
          const made = { transactionId: newTransactionId(), attemptId: 'NONE' };
          const part = h.amountMinor / 2n;
          await connector.refund(refundOf(made, { amountMinor: part, paymentReference: null }));
          await connector.refund(
            refundOf(made, { amountMinor: h.amountMinor - part, refundedMinor: part, paymentReference: null }),
          );
        },
      );
    });

    describe('notifications', () => {
      test(
        "the processor's notification names the attempt it is about",
        {
          skip: needs([c.notifications, 'the processor sends no notifications'], canPay, [
            h.notificationFor !== undefined,
            'the harness cannot receive notifications',
          ]),
        },
        async () => {
          const made = await paid();
          const { body, contentType } = await h.notificationFor!(made.attemptId);
          const hint = connector.parseNotification(body, contentType);
          assert.ok(hint.ok, hint.ok ? '' : hint.reason);
          assert.equal(hint.reference, made.attemptId);
          if (made.txnNo !== null) assert.equal(hint.processorTxnNo, made.txnNo);
        },
      );

      test('what is not a notification is read as unreadable, never thrown', async () => {
        for (const [body, type] of [
          ['{"partnerTxnUid":', 'application/json'],
          ['[]', 'application/json'],
          ['partnerTxnUid=Q1', 'application/x-www-form-urlencoded'],
          ['', undefined],
        ] as const) {
          const hint = connector.parseNotification(Buffer.from(body), type);
          assert.equal(hint.ok, false, body);
        }
      });
    });
  });
}

/** A condition a test needs, and the reason it is skipped without it. */
type Need = [holds: boolean, reason: string];

/** false (run) when every need holds, else the first reason (skip). */
function needs(...required: Need[]): false | string {
  return required.find(([holds]) => !holds)?.[1] ?? false;
}
