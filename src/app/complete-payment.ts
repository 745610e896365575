// Use case: the one way a transaction reaches its final state (customer confirm or cancel,
// sandbox completion, expiry). Final state, transition record, ledger postings and the
// outbox event are written in ONE database transaction; nothing calls out from inside it.
import { GatewayError } from '../domain/errors.ts';
import { newEventId, uuidv7 } from '../domain/ids.ts';
import { paymentPostings } from '../domain/ledger.ts';
import { FAILURE_TEXT, alreadyFinal, assertCanComplete, decideCompletion, type CompletionCause, type SandboxOutcome } from '../domain/lifecycle.ts';
import { notificationBody } from '../domain/notification.ts';
import type { LedgerRepo } from '../store/ledger.repo.ts';
import type { TransactionRunner } from '../store/group-commit.ts';
import type { MerchantsRepo } from '../store/merchants.repo.ts';
import type { Store } from '../store/open-store.ts';
import { insertOutboxEvent } from '../store/outbox.repo.ts';
import type { TransactionRecord, TransactionsRepo } from '../store/transactions.repo.ts';

export type CompletePaymentDeps = {
  store: Store;
  /** Runs the completion atomically; on SQLite inside a group commit shared with other writes. */
  transaction: TransactionRunner;
  transactions: TransactionsRepo;
  merchants: MerchantsRepo;
  ledger: LedgerRepo;
  now: () => number;
  /** Called after the commit, e.g. to wake the delivery worker. */
  onFinalised?: (transaction: TransactionRecord, eventId: string) => void;
};

export class CompletePayment {
  readonly #deps: CompletePaymentDeps;
  constructor(deps: CompletePaymentDeps) {
    this.#deps = deps;
  }

  /** `merchantId` scopes the lookup when a merchant asks (sandbox API); omitted for page and sweeper. */
  async execute(transactionId: string, cause: CompletionCause, options: { override?: SandboxOutcome; merchantId?: string } = {}): Promise<TransactionRecord> {
    const { store, transaction, transactions, ledger, now } = this.#deps;
    const eventId = newEventId();
    const finalised = await transaction(async (trx) => {
      const locked = await transactions.lockForCompletion(trx, transactionId, store.dialect);
      if (!locked || (options.merchantId !== undefined && locked.record.merchantId !== options.merchantId)) {
        throw new GatewayError('NOT_FOUND', 'No transaction with that transactionid exists for this merchant.');
      }
      const current = locked.record;
      assertCanComplete(current.status);
      const at = now();
      const decision = decideCompletion({ cause, amountMinor: current.amountMinor, expiresAt: current.expiresAt, now: at, override: options.override });
      const { outcome } = decision;
      const errorText = outcome.tag ? FAILURE_TEXT[outcome.tag] : null;
      // The conditional update is the last line of defence if the row lock was not held
      // (e.g. a future store): someone else finalised first, so nothing may be written.
      if (!(await transactions.finalise(trx, current.id, { status: outcome.status, errorCodeTag: outcome.tag, errorText, completedAt: at }))) {
        throw alreadyFinal();
      }
      await transactions.addTransition(trx, { transactionId: current.id, fromStatus: 'PROCESSING', toStatus: outcome.status, cause: decision.cause, errorCodeTag: outcome.tag, at });
      await insertOutboxEvent(trx, {
        id: eventId,
        transactionId: current.id,
        merchantId: current.merchantId,
        targetUrl: current.serverUrl,
        payload: notificationBody({
          eventId,
          transactionId: current.id,
          merchantId: current.merchantId,
          trackid: current.trackid,
          token: current.token,
          amountMinor: current.amountMinor,
          currency: current.currency,
          paymentMethod: current.paymentMethod,
          status: outcome.status,
          errorCodeTag: outcome.tag,
          errorText,
          createdAt: at,
        }),
        createdAt: at,
      });
      // The ledger goes last: on PostgreSQL its merchant payout row lock is then held only for the
      // postings, the entry and the commit, so completions of one merchant queue as briefly as possible.
      if (outcome.status === 'SUCCESS') {
        await ledger.post(
          trx,
          { id: uuidv7(at), kind: 'payment', merchantId: current.merchantId, transactionId: current.id, idempotencyKey: null, reason: `payment ${current.trackid}`, createdAt: at },
          paymentPostings(current.merchantId, current.currency, current.amountMinor, locked.feeRatePpm),
        );
      }
      return { ...current, status: outcome.status, errorCodeTag: outcome.tag, errorText, completedAt: at } satisfies TransactionRecord;
    });
    this.#deps.onFinalised?.(finalised, eventId);
    return finalised;
  }
}
