// Use case: the one way a transaction reaches its final state (customer confirm or cancel,
// sandbox completion, expiry). Final state, transition record, ledger postings and the
// outbox event are written in ONE database transaction; nothing calls out from inside it.
import { GatewayError } from '../domain/errors.ts';
import { newEventId, uuidv7 } from '../domain/ids.ts';
import { paymentPostings } from '../domain/ledger.ts';
import {
  FAILURE_TEXT,
  alreadyFinal,
  assertCanComplete,
  decideCompletion,
  type CompletionCause,
  type SandboxOutcome,
} from '../domain/lifecycle.ts';
import { notificationBody } from '../domain/notification.ts';
import { LedgerRepo } from '../store/repos/ledger.repo.ts';
import type { Trx } from '../store/engine.ts';
import { insertOutboxEvent } from '../store/repos/outbox.repo.ts';
import { type NewOutboxEvent } from '../domain/outbox-event.ts';
import { dialectOf } from '../store/dialect-of.ts';
import type { CompletionWrite } from '../store/postgres/completion-sets.repo.ts';
import { TransactionsRepo } from '../store/repos/transactions.repo.ts';
import { type TransactionRecord } from '../domain/transaction.ts';

/** What a completion needs to know; plain data, so the store may run it on another thread (store-jobs.ts). */
export type CompletionArgs = {
  transactionId: string;
  cause: CompletionCause;
  override?: SandboxOutcome;
  /** Scopes the lookup when a merchant asks (sandbox API); omitted for page and sweeper. */
  merchantId?: string;
  eventId: string;
  /** The completion's time: completed_at, the transition, the notification and the ledger entry. */
  at: number;
};

export type CompletePaymentDeps = {
  /** Runs completeInTransaction atomically (the store job `completePayment`). */
  completeInStore: (args: CompletionArgs) => Promise<TransactionRecord>;
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
  async execute(
    transactionId: string,
    cause: CompletionCause,
    options: { override?: SandboxOutcome; merchantId?: string } = {},
  ): Promise<TransactionRecord> {
    const eventId = newEventId();
    const finalised = await this.#deps.completeInStore({
      transactionId,
      cause,
      ...options,
      eventId,
      at: this.#deps.now(),
    });
    this.#deps.onFinalised?.(finalised, eventId);
    return finalised;
  }
}

/**
 * Repositories over a store job's transaction handle, created once per handle (the SQLite writer
 * thread has one), so what they compile once (e.g. the transaction INSERT) is kept.
 */
const reposByHandle = new WeakMap<Trx, { transactions: TransactionsRepo; ledger: LedgerRepo }>();
export function reposFor(trx: Trx): { transactions: TransactionsRepo; ledger: LedgerRepo } {
  let repos = reposByHandle.get(trx);
  if (!repos)
    reposByHandle.set(trx, (repos = { transactions: new TransactionsRepo(trx), ledger: new LedgerRepo(trx) }));
  return repos;
}

/** A transaction as read for its completion, with its merchant's fee rate as of now. */
export type CompletionInput = { record: TransactionRecord; feeRatePpm: bigint };

/**
 * Everything one completion writes, decided from the row as read (no I/O): the final state,
 * its transition, its outbox event and, on SUCCESS, the journal entry and its lines. The writes
 * must be conditional on the row still being PROCESSING; the store applies them all or none.
 */
export type CompletionPlan = CompletionWrite;

/**
 * Decides a completion from the row read for it: refuses an unknown (or another merchant's)
 * transaction, a final one, and an expiry before the deadline; otherwise returns what to write.
 * Shared by the one-transaction-per-completion job below and PostgreSQL's set-based batches
 * (completion-batches.ts), so both write exactly the same rows.
 */
export function planCompletion(input: CompletionInput | undefined, args: CompletionArgs): CompletionPlan {
  if (!input || (args.merchantId !== undefined && input.record.merchantId !== args.merchantId)) {
    throw new GatewayError('NOT_FOUND', 'No transaction with that transactionid exists for this merchant.');
  }
  const current = input.record;
  assertCanComplete(current.status);
  const { at, eventId } = args;
  const decision = decideCompletion({
    cause: args.cause,
    amountMinor: current.amountMinor,
    expiresAt: current.expiresAt,
    now: at,
    override: args.override,
  });
  const { outcome } = decision;
  const errorText = outcome.tag ? FAILURE_TEXT[outcome.tag] : null;
  const event: NewOutboxEvent = {
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
  };
  const ledger =
    outcome.status === 'SUCCESS'
      ? {
          entry: {
            id: uuidv7(at),
            kind: 'payment' as const,
            merchantId: current.merchantId,
            transactionId: current.id,
            idempotencyKey: null,
            reason: `payment ${current.trackid}`,
            createdAt: at,
          },
          lines: paymentPostings(current.merchantId, current.currency, current.amountMinor, input.feeRatePpm),
        }
      : null;
  return {
    final: { ...current, status: outcome.status, errorCodeTag: outcome.tag, errorText, completedAt: at },
    transition: {
      transactionId: current.id,
      fromStatus: 'PROCESSING',
      toStatus: outcome.status,
      cause: decision.cause,
      errorCodeTag: outcome.tag,
      at,
    },
    event,
    ledger,
  };
}

/**
 * The completion itself, inside one database transaction: final state, transition record,
 * outbox event and (on success) ledger postings, or nothing at all when it throws.
 */
export async function completeInTransaction(trx: Trx, args: CompletionArgs): Promise<TransactionRecord> {
  const { transactions, ledger } = reposFor(trx);
  const plan = planCompletion(await transactions.lockForCompletion(trx, args.transactionId, dialectOf(trx)), args);
  const { final } = plan;
  // The conditional update is the last line of defence if the row lock was not held
  // (e.g. a future store): someone else finalised first, so nothing may be written.
  if (
    !(await transactions.finalise(trx, final.id, {
      status: final.status,
      errorCodeTag: final.errorCodeTag,
      errorText: final.errorText,
      completedAt: args.at,
    }))
  ) {
    throw alreadyFinal();
  }
  await transactions.addTransition(trx, plan.transition);
  await insertOutboxEvent(trx, plan.event);
  // The ledger goes last: on PostgreSQL its merchant payout row lock is then held only for the
  // postings, the entry and the commit, so completions of one merchant queue as briefly as possible.
  if (plan.ledger) await ledger.post(trx, plan.ledger.entry, plan.ledger.lines);
  return final;
}
