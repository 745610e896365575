// Ending a live payment that has a QR at its processor (docs/connectors/kbank.md "Lifecycle"):
// expiry and the customer's Cancel close the QR at the processor FIRST, so a payment is never
// failed while the processor may still take money for it.
//   - closed (or never paid and now expired or cancelled there) → the payment fails as asked;
//   - already paid → the payment succeeds (the customer paid, then pressed Cancel; or paid at the
//     edge of the deadline);
//   - the processor cannot be reached → nothing changes now: the payment stays PROCESSING and the
//     next sweep (or the customer's next press) tries again.
// A processor that cannot cancel a QR (capabilities.cancel false: SCB) is asked once whether it was
// paid, so a payment made at the deadline still succeeds; otherwise the payment ends on our side at
// once, even when the processor cannot be reached (waiting would close nothing). The QR stays open
// there until its own expiry, its attempt checked by the reconciler, and a payment on it after the
// end goes to the needs-attention list (sync-payment.ts; docs/connectors/scb.md "Lifecycle").
import type { ProcessorAttempt } from '../../domain/processor-attempt.ts';
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { CompletePayment } from '../complete-payment.ts';
import type { ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector } from '../ports/processor.ts';
import type { SyncPayment } from './sync-payment.ts';

export type ClosePaymentDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'forTransaction' | 'update'>;
  sync: Pick<SyncPayment, 'applyTo'>;
  complete: Pick<CompletePayment, 'execute'>;
  now: () => number;
};

/** What closing did: the payment ended as asked, ended paid, or stays open (processor unreachable). */
export type CloseResult = 'closed' | 'paid' | 'open';

export class ClosePayment {
  readonly #deps: ClosePaymentDeps;
  constructor(deps: ClosePaymentDeps) {
    this.#deps = deps;
  }

  /**
   * Closes every QR the processor may still take money on, then ends the payment with `cause`.
   * Throws what CompletePayment throws for the final write (INVALID_STATE when someone else ended
   * it first).
   */
  async close(transaction: TransactionRecord, cause: 'expire' | 'cancel'): Promise<CloseResult> {
    const open = (await this.#deps.attempts.forTransaction(transaction.id)).filter(
      (a) => a.kind === 'qr' && (a.state === 'pending' || a.state === 'requested'),
    );
    for (const attempt of open) {
      const result = await this.#closeAttempt(transaction, attempt);
      if (result !== 'closed') return result;
    }
    await this.#deps.complete.execute(transaction.id, cause);
    return 'closed';
  }

  async #closeAttempt(transaction: TransactionRecord, attempt: ProcessorAttempt): Promise<CloseResult> {
    const connector = this.#deps.connector();
    if (!connector.capabilities.cancel) return this.#closeOnOurSide(transaction, attempt);
    try {
      const outcome = await connector.cancelPayment(attempt.reference);
      if (outcome === 'cancelled') {
        await this.#deps.attempts.update(attempt.reference, {
          state: 'cancelled',
          stateAt: this.#deps.now(),
          nextCheckAt: null,
        });
        return 'closed';
      }
      // Paid, or final in another way: the processor's own answer decides.
      const status = await connector.queryPayment(attempt.reference, attempt.createdAt);
      const synced = await this.#deps.sync.applyTo(transaction, attempt, status);
      // Paid for another amount: not this payment's money (an operator has it on the attention
      // list); the payment ends as asked. Paid and held by the payer check (`held`): paid, so never
      // ended as asked; the operator decides.
      if (status.state === 'paid' && synced !== 'needs_attention') return 'paid';
      return 'closed';
    } catch (error) {
      if (error instanceof ProcessorUnavailable) return 'open';
      throw error;
    }
  }

  /** Without cancel: paid already decides; anything else (or no answer) closes on our side. */
  async #closeOnOurSide(transaction: TransactionRecord, attempt: ProcessorAttempt): Promise<CloseResult> {
    const connector = this.#deps.connector();
    let status;
    try {
      status = await connector.queryPayment(attempt.reference, attempt.createdAt);
    } catch (error) {
      if (error instanceof ProcessorUnavailable) return 'closed';
      throw error;
    }
    if (status.state !== 'paid') return 'closed';
    const synced = await this.#deps.sync.applyTo(transaction, attempt, status);
    return synced === 'needs_attention' ? 'closed' : 'paid';
  }
}
