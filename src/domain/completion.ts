// Planning a completion (docs/api.md "Lifecycle"): from the transaction as read, decide its
// final state, the transition, the result notification and, on success, the ledger entry. Pure:
// the use case (app/complete-payment.ts) reads, this decides, the store writes.
import { GatewayError } from './errors.ts';
import { uuidv7 } from './ids.ts';
import { paymentPostings, type JournalEntry, type PostingLine } from './ledger.ts';
import {
  FAILURE_TEXT,
  assertCanComplete,
  decideCompletion,
  isPayerDecision,
  type CompletionCause,
  type SandboxOutcome,
} from './lifecycle.ts';
import { notificationBody } from './notification.ts';
import type { NewOutboxEvent } from './outbox-event.ts';
import type { PayerCheck } from './payer-check.ts';
import { isHeldForPayer, type TransactionRecord, type Transition } from './transaction.ts';

/** What a completion needs to know besides the row: who asks, why, and when. */
export type CompletionArgs = {
  transactionId: string;
  cause: CompletionCause;
  override?: SandboxOutcome;
  /** Scopes the lookup when a merchant asks (sandbox API); omitted for page and sweeper. */
  merchantId?: string;
  eventId: string;
  /** The completion's time: completed_at, the transition, the notification and the ledger entry. */
  at: number;
  /** The payer check's verdict, recorded with this completion (a processor reported who paid). */
  payerCheck?: PayerCheck;
};

/** A transaction as read for its completion, with its merchant's fee rate as of now. */
export type CompletionInput = { record: TransactionRecord; feeRatePpm: bigint };

/**
 * Everything one completion writes, decided from the row as read (no I/O): the final state,
 * its transition, its outbox event and, on SUCCESS, the journal entry and its lines. The writes
 * must be conditional on the row still being PROCESSING; the store applies them all or none.
 */
export type CompletionPlan = {
  /** The transaction as it will be once final. */
  final: TransactionRecord;
  transition: Transition;
  event: NewOutboxEvent;
  /** On SUCCESS: the payment's journal entry and its lines (domain/ledger.ts paymentPostings). */
  ledger: { entry: JournalEntry; lines: PostingLine[] } | null;
  /**
   * The payer check as the row was read. The write is conditional on it too: a payment the payer
   * check held meanwhile (null → a verdict) is not completed by a plan made before the hold.
   */
  payerCheckAsRead: PayerCheck | null;
};

/**
 * Decides a completion from the row read for it: refuses an unknown (or another merchant's)
 * transaction, a final one, and an expiry before the deadline; otherwise returns what to write.
 * The store writes the plan atomically, and only while the row is still PROCESSING
 * (app/ports/store.ts CompletionStore), so a plan made from a row someone else finalises meanwhile
 * writes nothing.
 */
export function planCompletion(input: CompletionInput | undefined, args: CompletionArgs): CompletionPlan {
  if (!input || (args.merchantId !== undefined && input.record.merchantId !== args.merchantId)) {
    throw new GatewayError('NOT_FOUND', 'No transaction with that transactionid exists for this merchant.');
  }
  const current = input.record;
  assertCanComplete(current.status);
  const held = isHeldForPayer(current);
  if (held !== isPayerDecision(args.cause)) {
    throw new GatewayError(
      'INVALID_STATE',
      held
        ? "The payment is held for an operator's decision on who paid it; only that decision ends it."
        : 'The payment is not held for a decision on who paid it.',
    );
  }
  const { at, eventId } = args;
  const payerCheck = args.payerCheck ?? current.payerCheck;
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
      payerCheck,
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
    final: { ...current, status: outcome.status, errorCodeTag: outcome.tag, errorText, completedAt: at, payerCheck },
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
    payerCheckAsRead: current.payerCheck,
  };
}
