// Applies the processor's truth about one attempt to the payment (docs/connectors/kbank.md
// "Lifecycle"). Every path that learns something from the processor ends here — the reconciler's
// checks, a notification's check, the hosted page's look, expiry and the customer's Cancel — so
// the rules exist once:
//   - PAID for exactly the payment's amount and currency completes it as SUCCESS (cause
//     processor_paid), even past our own deadline, while our row is still PROCESSING;
//   - PAID for a payment we already finalised as failed (expired, cancelled) is voided when the
//     processor allows it, and otherwise goes on the needs-attention list: money came in that the
//     merchant will not be credited for;
//   - PAID for another amount or currency completes nothing and needs a person;
//   - PAID for the right amount is checked against the payer the merchant named (the payer check,
//     domain/payer-check.ts): the verdict is written with the completion; a `mismatched` one of a
//     merchant whose payer_mismatch is `hold` completes nothing: the payment stays PROCESSING, held
//     (its verdict written), and an operator accepts or declines it from the needs-attention list.
//     Nothing else ends a held payment: a later sync raises the item again (a no-op while open),
//     the sweeper skips it, and every other completion is refused (domain/completion.ts);
//   - money paid twice for one payment needs a person: a QR the processor reports paid more than
//     once (SCB lists each payment), or a second attempt paid after the payment succeeded on
//     another (a processor that cannot cancel leaves an earlier QR payable);
//   - the processor's other states are recorded, and checks of a final attempt stop.
import { GatewayError } from '../../domain/errors.ts';
import { newEventId } from '../../domain/ids.ts';
import { comparePayer, type PayerComparison } from '../../domain/payer-check.ts';
import type { AttentionKind, ProcessorAttempt } from '../../domain/processor-attempt.ts';
import { isHeldForPayer, type TransactionRecord } from '../../domain/transaction.ts';
import type { CompletePayment } from '../complete-payment.ts';
import type { AttemptChanges, AttentionStore, ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector, ProcessorPaymentStatus } from '../ports/processor.ts';
import type { CompletionStore, MerchantStore, PaymentStore, RefundReads } from '../ports/store.ts';
import { nextCheckAfter } from './check-schedule.ts';

export type SyncPaymentDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'update' | 'insert' | 'latest' | 'forTransaction'>;
  payments: Pick<PaymentStore, 'findById'>;
  refunds: Pick<RefundReads, 'findById'>;
  attention: Pick<AttentionStore, 'raise'>;
  complete: Pick<CompletePayment, 'execute'>;
  /** Holds a payment the payer check found paid by someone else (merchant setting `hold`). */
  completions: Pick<CompletionStore, 'holdForPayer'>;
  /** The merchant's payer_mismatch setting, read when a verdict is `mismatched`. */
  merchants: Pick<MerchantStore, 'findById'>;
  now: () => number;
  /** Something happened that an operator should see (a mismatch, a payment after the end). */
  warn: (details: object, message: string) => void;
};

/** What one sync did to the payment; `held`: paid, and held for an operator by the payer check. */
export type SyncResult = 'completed' | 'unchanged' | 'voided' | 'needs_attention' | 'held';

export class SyncPayment {
  readonly #deps: SyncPaymentDeps;
  constructor(deps: SyncPaymentDeps) {
    this.#deps = deps;
  }

  /**
   * Applies `status` (just queried) to `attempt` of `transaction`: the attempt's record, and when
   * it is paid, the payment. Returns the attempt's changes for the caller to write with its lease
   * (`applyTo` writes them itself when the caller holds none).
   */
  async apply(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
  ): Promise<{ result: SyncResult; changes: AttemptChanges }> {
    const now = this.#deps.now();
    const base: AttemptChanges = { stateAt: now, checks: attempt.checks + 1, lastError: null };
    switch (status.state) {
      case 'paid':
        return this.#paid(transaction, attempt, status, { ...base, state: 'paid' });
      case 'requested':
        return {
          result: 'unchanged',
          changes: { ...base, state: 'requested', nextCheckAt: nextCheckAfter(attempt.checks + 1, now) },
        };
      case 'not_found':
        // A create the processor never received, or an id it forgot: nothing can be paid on it.
        return {
          result: 'unchanged',
          changes: { ...base, state: attempt.state === 'pending' ? 'failed' : 'not_found', nextCheckAt: null },
        };
      default:
        return { result: 'unchanged', changes: { ...base, state: status.state, nextCheckAt: null } };
    }
  }

  /**
   * A void attempt whose answer never came: the processor's state of the paid QR it voids says
   * whether it happened. A void the processor applied without a refund recorded here (the
   * refund's commit never happened and the merchant did not retry) needs a person.
   */
  async applyVoid(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
  ): Promise<AttemptChanges> {
    const now = this.#deps.now();
    const base: AttemptChanges = { stateAt: now, checks: attempt.checks + 1, nextCheckAt: null, lastError: null };
    if (status.state === 'paid') return { ...base, state: 'failed', lastError: 'the processor did not void it' };
    if (status.state !== 'voided') return { ...base, state: status.state };
    const recorded = attempt.refundId !== null && (await this.#deps.refunds.findById(attempt.refundId));
    if (!recorded) {
      await this.#attention(
        transaction,
        'void_unknown',
        `The processor voided the payment (${attempt.parentReference ?? attempt.reference}) for refund ` +
          `${attempt.refundId ?? '?'}, but no refund was recorded: the merchant's retry of the same refund ` +
          'records it; otherwise the payer has the money back and the merchant was not debited.',
        transaction.amountMinor,
        attempt.reference,
      );
    }
    return { ...base, state: 'voided', processorTxnNo: status.processorTxnNo };
  }

  /** `apply`, written at once (no lease held). */
  async applyTo(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
  ): Promise<SyncResult> {
    const { result, changes } = await this.apply(transaction, attempt, status);
    await this.#deps.attempts.update(attempt.reference, changes);
    return result;
  }

  async #paid(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
    changes: AttemptChanges,
  ): Promise<{ result: SyncResult; changes: AttemptChanges }> {
    const now = this.#deps.now();
    const paid: AttemptChanges = {
      ...changes,
      processorTxnNo: status.processorTxnNo,
      paidAmountMinor: status.paidAmountMinor,
      paidAt: attempt.paidAt ?? now,
      nextCheckAt: null,
    };
    if (status.alsoPaid.length > 0) await this.#paidMoreThanOnce(transaction, attempt, status);
    if (status.paidAmountMinor !== transaction.amountMinor || status.currency !== transaction.currency) {
      const detail =
        `The processor reports ${status.paidAmountMinor ?? '?'} (1/10,000) ${status.currency ?? '?'} paid on ` +
        `${attempt.reference}, but the payment is ${transaction.amountMinor} ${transaction.currency}; ` +
        'nothing was completed.';
      await this.#attention(transaction, 'amount_mismatch', detail, status.paidAmountMinor, attempt.reference);
      return { result: 'needs_attention', changes: paid };
    }
    const check = comparePayer(
      { accountNo: transaction.payerAccountNo, bankCode: transaction.payerBankCode },
      status.payer,
    );
    if (transaction.status === 'PROCESSING' && !isHeldForPayer(transaction)) {
      try {
        if (check.verdict === 'mismatched' && (await this.#holdsMismatches(transaction))) {
          if (await this.#deps.completions.holdForPayer(transaction.id, 'mismatched')) {
            await this.#raiseHeld(transaction, attempt, status, check);
            return { result: 'held', changes: paid };
          }
          // Held or finalised meanwhile by someone else: read what it became and treat it as below.
          throw new GatewayError('INVALID_STATE', 'The payment changed meanwhile.');
        }
        await this.#deps.complete.execute(transaction.id, 'processor_paid', { payerCheck: check.verdict });
        return { result: 'completed', changes: paid };
      } catch (error) {
        // Finalised (or held) meanwhile by someone else: read what it became and treat it as below.
        if (!(error instanceof GatewayError) || error.tag !== 'INVALID_STATE') throw error;
        const now = await this.#deps.payments.findById(transaction.merchantId, transaction.id);
        if (!now || (now.status === 'PROCESSING' && !isHeldForPayer(now))) throw error;
        transaction = now;
      }
    }
    if (isHeldForPayer(transaction)) {
      // Held already: the item again (a no-op while it is open; raised anew if a crash came
      // between the hold and its item). Only the operator's decision ends the payment.
      await this.#raiseHeld(transaction, attempt, status, check);
      return { result: 'held', changes: paid };
    }
    if (transaction.status === 'SUCCESS') {
      const other = await this.#otherPaidAttempt(transaction, attempt);
      if (other === undefined) return { result: 'unchanged', changes: paid };
      await this.#attention(
        transaction,
        'paid_twice',
        `Paid at the processor on ${attempt.reference} (${status.processorTxnNo ?? 'no payment number'}) after the ` +
          `payment succeeded on ${other.reference}: the customer paid twice; transfer this one back.`,
        status.paidAmountMinor,
        attempt.reference,
      );
      return { result: 'needs_attention', changes: paid };
    }
    // Held, then declined by an operator: the payer's money goes back by bank transfer, as the
    // operator was told; never voided or raised again behind that decision.
    if (transaction.payerCheck !== null) return { result: 'unchanged', changes: paid };
    const result = await this.#paidAfterFinal(transaction, attempt, status);
    return { result, changes: result === 'voided' ? { ...paid, state: 'voided' } : paid };
  }

  /**
   * Paid at the processor, failed here (the payment expired or was cancelled before the money came
   * in, and closing the QR at the processor did not stop it). The payer gets the money back by a
   * void when the processor can still void it; otherwise an operator transfers it back.
   */
  async #paidAfterFinal(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
  ): Promise<SyncResult> {
    const connector = this.#deps.connector();
    this.#deps.warn(
      { transactionId: transaction.id, reference: attempt.reference, status: transaction.errorCodeTag },
      'processor reports a payment paid after the gateway finalised it',
    );
    if (connector.capabilities.refunds === 'void') {
      const voidId = `pay_${attempt.reference}`;
      try {
        await connector.refund({
          refundId: voidId,
          transactionId: transaction.id,
          merchantId: transaction.merchantId,
          amountMinor: transaction.amountMinor,
          currency: transaction.currency,
          reason: 'paid after the payment ended',
          paymentAmountMinor: transaction.amountMinor,
          refundedMinor: 0n,
          paidAt: attempt.paidAt ?? this.#deps.now(),
          paymentReference: attempt.reference,
        });
        return 'voided';
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        await this.#attention(
          transaction,
          'paid_after_final',
          `Paid at the processor (${attempt.reference}, ${status.processorTxnNo ?? 'no payment number'}) after the ` +
            `payment ended ${transaction.errorCodeTag ?? ''}; the automatic void failed: ${why}`,
          status.paidAmountMinor,
          attempt.reference,
        );
        return 'needs_attention';
      }
    }
    await this.#attention(
      transaction,
      'paid_after_final',
      `Paid at the processor (${attempt.reference}, ${status.processorTxnNo ?? 'no payment number'}) after the ` +
        `payment ended ${transaction.errorCodeTag ?? ''}; this processor cannot void it: transfer it back.`,
      status.paidAmountMinor,
      attempt.reference,
    );
    return 'needs_attention';
  }

  /** The merchant's payer_mismatch setting is `hold` (a merchant gone: `record`, the default). */
  async #holdsMismatches(transaction: TransactionRecord): Promise<boolean> {
    return (await this.#deps.merchants.findById(transaction.merchantId))?.payerMismatch === 'hold';
  }

  /**
   * The needs-attention item of a held payment: what differs (bank, places of the differing
   * digits, accounts masked to their last four places; domain/payer-check.ts) and the name the
   * processor reported, for the operator only — the merchant's answers carry the verdict alone.
   */
  async #raiseHeld(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
    check: PayerComparison,
  ): Promise<void> {
    const name = status.payer?.name?.trim();
    await this.#attention(
      transaction,
      'payer_mismatch',
      `Paid at the processor (${attempt.reference}, ${status.processorTxnNo ?? 'no payment number'}) from another ` +
        `account than the payer named: ${check.differences.join('; ') || 'the payer now reported matches'}` +
        `${name ? `; name reported: ${name}` : ''}. The merchant holds such payments: accept it (it completes) or ` +
        "decline it (it fails, and the payer's money is returned by bank transfer).",
      status.paidAmountMinor,
      attempt.reference,
    );
  }

  /** Another QR attempt of the payment recorded paid (the one that completed it), if any. */
  async #otherPaidAttempt(transaction: TransactionRecord, attempt: ProcessorAttempt) {
    const attempts = await this.#deps.attempts.forTransaction(transaction.id);
    return attempts.find((a) => a.kind === 'qr' && a.state === 'paid' && a.reference !== attempt.reference);
  }

  /** One QR paid more than once: the first payment is applied as usual, the others need a person. */
  async #paidMoreThanOnce(
    transaction: TransactionRecord,
    attempt: ProcessorAttempt,
    status: ProcessorPaymentStatus,
  ): Promise<void> {
    const others = status.alsoPaid.map((p) => `${p.processorTxnNo ?? '?'} (${p.paidAmountMinor ?? '?'} (1/10,000))`);
    const total = status.alsoPaid.reduce<bigint | null>(
      (sum, p) => (sum === null || p.paidAmountMinor === null ? null : sum + p.paidAmountMinor),
      0n,
    );
    await this.#attention(
      transaction,
      'paid_twice',
      `The processor reports ${attempt.reference} paid ${status.alsoPaid.length + 1} times: ` +
        `${status.processorTxnNo ?? '?'} counts for the payment; ${others.join(', ')} ` +
        `${status.alsoPaid.length === 1 ? 'was' : 'were'} paid on top: transfer ` +
        `${status.alsoPaid.length === 1 ? 'it' : 'them'} back.`,
      total,
      attempt.reference,
    );
  }

  async #attention(
    transaction: TransactionRecord,
    kind: AttentionKind,
    detail: string,
    amountMinor: bigint | null,
    reference: string,
  ): Promise<void> {
    const raised = await this.#deps.attention.raise({
      id: newEventId().replace(/^evt_/, 'att_'),
      transactionId: transaction.id,
      kind,
      detail,
      amountMinor,
      reference,
      createdAt: this.#deps.now(),
      resolvedAt: null,
      resolvedBy: null,
      resolution: null,
    });
    if (raised) this.#deps.warn({ transactionId: transaction.id, kind, reference }, 'payment needs attention');
  }
}
