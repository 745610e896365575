// What a console user may do to one payment, each through the use case the API or the CLI uses,
// then audited (docs/console.md "Pages"): resend a notification (`delivery resend`), refund
// (POST /transaction/refund, on behalf of the payment's merchant), record a refund already paid
// by bank transfer (`refund record`) and, in sandbox, complete it (POST /sandbox/transaction/complete).
// The payment is looked up for whoever asks first, so a merchant can act only on its own.
import { GatewayError, invalidField, isGatewayError } from '../../domain/errors.ts';
import type { SandboxOutcome } from '../../domain/lifecycle.ts';
import { currencyExponent, formatMinor } from '../../domain/money.ts';
import { validateRefund, type NormalisedRefund } from '../../domain/refund-request.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { CompletePayment } from '../complete-payment.ts';
import type { Store } from '../ports/store.ts';
import type { RecordTransferRefund } from '../record-transfer-refund.ts';
import { checkRefundable, type RefundPayment } from '../refund-payment.ts';
import { resendNotification } from '../resend-notification.ts';
import { merchantScopeOf } from './console-accounts.ts';
import { auditActorOf, type ConsoleActor, type ConsoleAudit } from './console-audit.ts';
import type { ConsolePaymentReads } from './payment-reads.ts';

export type ConsolePaymentActionsDeps = {
  payments: Pick<ConsolePaymentReads, 'find'>;
  store: Pick<Store, 'outbox' | 'deliveries'>;
  refund: Pick<RefundPayment, 'execute'>;
  recordTransfer: Pick<RecordTransferRefund, 'record'>;
  complete: Pick<CompletePayment, 'execute'>;
  audit: ConsoleAudit;
  /** Sandbox completion exists only in sandbox mode. */
  sandbox: boolean;
  now: () => number;
  /**
   * Wakes this instance's delivery worker for the event; other instances hear of it through the
   * store (NOTIFY on PostgreSQL) or their poll (SQLite).
   */
  wake: (transactionId: string, eventId: string) => void;
};

export type RefundForm = {
  /** A plain decimal in the payment's currency; empty: all that is left. */
  amount: string;
  reason: string | null;
  /** The form's idempotency key: a double submit refunds once. */
  reference: string | null;
};

/** The form of a refund already paid by bank transfer, as posted. */
export type TransferRefundForm = {
  amount: string;
  transferReference: string;
  reason: string | null;
  /** The box saying the money was already sent: recording moves none (docs/console.md "Pages"). */
  alreadySent: boolean;
  /** Who sent it: 'gateway' or 'merchant' (the radio; domain/transfer-refund.ts validateTransferPaidBy). */
  paidBy: string;
};

/** The form field that says the transfer was already sent; a form without it records nothing. */
export const ALREADY_SENT_FIELD = 'already_sent';

/** What a refund form would do, shown for confirmation before anything moves. */
export type RefundPreview = {
  payment: TransactionRecord;
  amountMinor: bigint;
  /** The amount as the confirmation form carries it: a plain decimal in the currency's digits. */
  amount: string;
  reason: string | null;
  refundableAfterMinor: bigint;
};

export class ConsolePaymentActions {
  readonly #deps: ConsolePaymentActionsDeps;
  constructor(deps: ConsolePaymentActionsDeps) {
    this.#deps = deps;
  }

  /**
   * A new attempt series of the payment's result notification or, with `eventId`, of one of its
   * refund notifications (same event, same body).
   */
  async resend(
    input: ConsoleActor & { transactionId: string; eventId?: string },
  ): Promise<{ transactionId: string; series: number; refundId: string | null }> {
    const { store, audit, now, wake } = this.#deps;
    const tx = await this.#deps.payments.find(input.transactionId, input.who);
    const event =
      input.eventId !== undefined
        ? await store.outbox.findById(input.eventId)
        : await store.outbox.findByTransaction(tx.id);
    if (!event || event.transactionId !== tx.id)
      throw new GatewayError('NOT_FOUND', 'This payment has no such notification.');
    const result = await resendNotification(store, event.id, now());
    wake(tx.id, event.id);
    await audit.record(
      auditActorOf(input.who),
      'delivery.resend',
      event.id,
      { transactionid: tx.id, refundid: event.refundId, series: result.series, previous_status: result.previousStatus },
      input.origin,
    );
    return { transactionId: tx.id, series: result.series, refundId: event.refundId };
  }

  /**
   * The confirmation step (docs/console.md "Pages"): the form read as the refund reads it and,
   * with `check` (the default), checked as the refund checks it — amount, state, what is left —
   * with nothing changed and nothing audited. Without `check` it only says what a confirmed form
   * names: a confirmed form posted twice must reach the refund, which answers it again.
   */
  async previewRefund(
    input: Pick<ConsoleActor, 'who'> & { transactionId: string; form: RefundForm },
    check = true,
  ): Promise<RefundPreview> {
    const tx = await this.#deps.payments.find(input.transactionId, input.who);
    const request = refundRequestOf(tx, input.form);
    if (check) checkRefundable(tx, request);
    return {
      payment: tx,
      amountMinor: request.amountMinor,
      amount: formatMinor(request.amountMinor, currencyExponent(tx.currency)),
      reason: request.reason,
      refundableAfterMinor: tx.amountMinor - tx.refundedMinor - request.amountMinor,
    };
  }

  /** Audited once: a replay of the same form (same reference) refunds nothing and writes no entry. */
  async refund(input: ConsoleActor & { transactionId: string; form: RefundForm }): Promise<{
    transactionId: string;
    refundId: string;
  }> {
    const tx = await this.#deps.payments.find(input.transactionId, input.who);
    const request = refundRequestOf(tx, input.form);
    const outcome = await this.#deps.refund.execute(tx.merchantId, request);
    const { refund } = outcome;
    if (!outcome.replayed) {
      await this.#deps.audit.record(
        auditActorOf(input.who),
        'payment.refund',
        tx.id,
        {
          refundid: refund.id,
          amount: formatMinor(refund.amountMinor, currencyExponent(refund.currency)),
          currency: refund.currency,
          reason: refund.reason,
        },
        input.origin,
      );
    }
    return { transactionId: tx.id, refundId: refund.id };
  }

  /**
   * Records a refund already paid by bank transfer (app/record-transfer-refund.ts), for a payment
   * the user may see. A merchant may record either payer: the operator may have sent the transfer
   * at the merchant's request. The same reference again answers the first refund.
   */
  async recordTransfer(input: ConsoleActor & { transactionId: string; form: TransferRefundForm }): Promise<{
    transactionId: string;
    refundId: string;
    replayed: boolean;
  }> {
    const tx = await this.#deps.payments.find(input.transactionId, input.who);
    if (!input.form.alreadySent)
      throw invalidField(ALREADY_SENT_FIELD, 'tick it to say the bank transfer was already sent; nothing was recorded');
    const outcome = await this.#deps.recordTransfer.record({
      merchantId: tx.merchantId,
      transactionId: tx.id,
      amount: input.form.amount,
      transferReference: input.form.transferReference,
      paidBy: input.form.paidBy,
      reason: input.form.reason,
      by: { actor: auditActorOf(input.who), origin: input.origin },
    });
    return { transactionId: tx.id, refundId: outcome.refund.id, replayed: outcome.replayed };
  }

  /** `completed: false`: someone else finished the payment first (nothing changed, nothing audited). */
  async complete(
    input: ConsoleActor & { transactionId: string; outcome: SandboxOutcome },
  ): Promise<{ transactionId: string; completed: boolean }> {
    if (!this.#deps.sandbox) throw new GatewayError('NOT_FOUND', 'Sandbox completion is not available in live mode.');
    const tx = await this.#deps.payments.find(input.transactionId, input.who);
    const scope = merchantScopeOf(input.who);
    try {
      await this.#deps.complete.execute(tx.id, 'sandbox', {
        override: input.outcome,
        ...(scope !== undefined && { merchantId: scope }),
      });
    } catch (error) {
      if (isGatewayError(error) && error.tag === 'INVALID_STATE') return { transactionId: tx.id, completed: false };
      throw error;
    }
    await this.#deps.audit.record(
      auditActorOf(input.who),
      'payment.complete',
      tx.id,
      { outcome: input.outcome },
      input.origin,
    );
    return { transactionId: tx.id, completed: true };
  }
}

/** The console's refund form as the API's refund request of the payment's merchant. */
function refundRequestOf(tx: TransactionRecord, form: RefundForm): NormalisedRefund {
  return validateRefund({
    transactionid: tx.id,
    bill_amount: form.amount,
    bill_currencycode: tx.currency,
    reason: form.reason,
    refund_reference: form.reference,
  });
}
