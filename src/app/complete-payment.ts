// Use case: the one way a transaction reaches its final state (customer confirm or cancel,
// sandbox completion, expiry). It reads the row, the domain plans the completion
// (domain/completion.ts), and the store writes the plan atomically: final state, transition
// record, ledger postings and the outbox event, or nothing. Nothing calls out in between.
import { planCompletion } from '../domain/completion.ts';
import { newEventId } from '../domain/ids.ts';
import { alreadyFinal, type CompletionCause, type SandboxOutcome } from '../domain/lifecycle.ts';
import type { PayerCheck } from '../domain/payer-check.ts';
import type { TransactionRecord } from '../domain/transaction.ts';
import type { CompletionStore } from './ports/store.ts';

export type CompletePaymentDeps = {
  completions: CompletionStore;
  now: () => number;
  /** Called after the commit, e.g. to wake the delivery worker. */
  onFinalised?: (transaction: TransactionRecord, eventId: string) => void;
};

export class CompletePayment {
  readonly #deps: CompletePaymentDeps;
  constructor(deps: CompletePaymentDeps) {
    this.#deps = deps;
  }

  /**
   * `merchantId` scopes the lookup when a merchant asks (sandbox API); omitted for page and sweeper.
   * `payerCheck`: the verdict on who paid, written with the completion (app/processor/sync-payment.ts).
   */
  async execute(
    transactionId: string,
    cause: CompletionCause,
    options: { override?: SandboxOutcome; merchantId?: string; payerCheck?: PayerCheck } = {},
  ): Promise<TransactionRecord> {
    const { completions, now } = this.#deps;
    const eventId = newEventId();
    const input = await completions.readForCompletion(transactionId);
    const plan = planCompletion(input, { transactionId, cause, ...options, eventId, at: now() });
    // Conditional on the row still being PROCESSING: someone else may have finalised it meanwhile.
    if (!(await completions.write(plan))) throw alreadyFinal();
    this.#deps.onFinalised?.(plan.final, eventId);
    return plan.final;
  }
}
