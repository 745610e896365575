// Use case: record a refund ALREADY paid by bank transfer (docs/api.md "Refunds the processor cannot
// make"), for a payment its processor cannot refund (capabilities.refunds 'none', KBank after its
// void window). It is the refund use case (app/refund-payment.ts) with the processor's step
// replaced by the transfer's reference and who sent it: the same amount rules and checks, the same
// locked re-check, refund row and refund notification; no money moves here. The ledger entry
// follows who paid (docs/ledger.md): the gateway's operator, from the merchant's funds → payout −
// amount against the operator adjustment account; the merchant, from its own account → none.
// The console (payment page) and the CLI (`refund record`) both come through here, so both write
// the same rows and the same audit entry (`payment.refund_recorded`).
import { GatewayError } from '../domain/errors.ts';
import { currencyExponent, formatMinor } from '../domain/money.ts';
import { refundAmount, refundReason, type NormalisedRefund } from '../domain/refund-request.ts';
import { validateTransferPaidBy, validateTransferReference } from '../domain/transfer-refund.ts';
import type { AuditActor, AuditOrigin, ConsoleAudit } from './console/console-audit.ts';
import type { PaymentStore } from './ports/store.ts';
import type { RefundOutcome, RefundPayment } from './refund-payment.ts';

export type RecordTransferRefundDeps = {
  refund: Pick<RefundPayment, 'execute'>;
  payments: Pick<PaymentStore, 'findById'>;
  audit: Pick<ConsoleAudit, 'record'>;
};

/** Who recorded the transfer, for the audit log: a console user, or an operator at the CLI. */
export type TransferRecorder = { actor: AuditActor; origin: AuditOrigin };

export const CLI_RECORDER: TransferRecorder = {
  actor: { role: 'cli', id: null },
  origin: { remoteAddr: null, requestId: null },
};

export type RecordedTransfer = {
  merchantId: string;
  transactionId: string;
  /** A plain decimal in the payment's currency, read exactly as the API's `bill_amount`. */
  amount: unknown;
  /** The bank transfer's reference (domain/transfer-refund.ts). */
  transferReference: unknown;
  /** Who sent the transfer: 'gateway' or 'merchant' (domain/transfer-refund.ts validateTransferPaidBy). */
  paidBy: unknown;
  reason: unknown;
  by: TransferRecorder;
};

export class RecordTransferRefund {
  readonly #deps: RecordTransferRefundDeps;
  constructor(deps: RecordTransferRefundDeps) {
    this.#deps = deps;
  }

  /**
   * The refund, recorded once per (payment, transfer reference): the same reference again answers
   * the first refund (`replayed`) and writes nothing, not even an audit entry.
   */
  async record(input: RecordedTransfer): Promise<RefundOutcome> {
    const payment = await this.#deps.payments.findById(input.merchantId, input.transactionId);
    if (!payment)
      throw new GatewayError('NOT_FOUND', 'No transaction with that transactionid exists for this merchant.');
    // The API's own rules for the amount and the reason (exact decimal, > 0, the currency's digits),
    // named as the console's form and the CLI's flags name them.
    const fields = { amount: input.amount, reason: input.reason };
    const request: NormalisedRefund = {
      transactionId: payment.id,
      currency: payment.currency,
      amountMinor: refundAmount(fields, 'amount', payment.currency),
      reference: null,
      reason: refundReason(fields, 'reason'),
      idempotencyKey: null,
    };
    const transferReference = validateTransferReference(input.transferReference);
    const paidBy = validateTransferPaidBy(input.paidBy);
    const outcome = await this.#deps.refund.execute(payment.merchantId, request, {
      by: 'bank_transfer',
      transferReference,
      paidBy,
    });
    if (!outcome.replayed) {
      const { refund } = outcome;
      await this.#deps.audit.record(
        input.by.actor,
        'payment.refund_recorded',
        payment.id,
        {
          refundid: refund.id,
          merchantid: refund.merchantId,
          amount: formatMinor(refund.amountMinor, currencyExponent(refund.currency)),
          currency: refund.currency,
          transfer_reference: transferReference,
          paid_by: paidBy,
          reason: refund.reason,
        },
        input.by.origin,
      );
    }
    return outcome;
  }
}
