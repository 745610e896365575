// A refund's step at the processor (app/refund-payment.ts step 3), outside any database
// transaction. With a processor that refunds by voiding the payment (capabilities.refunds 'void'),
// the void is written as an attempt first, so one the processor applied but whose answer never
// came (or whose commit never happened) is found by the reconciler; the merchant's retry reaches
// the same void (the connector asks before it voids).
import { pendingAttempt } from '../../domain/processor-attempt.ts';
import { ProcessorUnavailable } from '../../domain/processor-errors.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector, RefundAccepted, RefundRequest } from '../ports/processor.ts';

export type RefundAtProcessorDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'latest' | 'insert' | 'update'>;
  now: () => number;
};

/** Asks the processor for the refund; a void is recorded as an attempt around the request. */
export async function refundAtProcessor(
  deps: RefundAtProcessorDeps,
  payment: TransactionRecord,
  request: RefundBasics,
): Promise<RefundAccepted> {
  const connector = deps.connector();
  const paid = await deps.attempts.latest(payment.id, 'qr');
  const paymentReference = paid?.state === 'paid' ? paid.reference : null;
  const full: RefundRequest = {
    ...request,
    paymentAmountMinor: payment.amountMinor,
    refundedMinor: payment.refundedMinor,
    paidAt: paid?.paidAt ?? payment.completedAt,
    paymentReference,
  };
  if (connector.capabilities.refunds !== 'void' || paymentReference === null) return connector.refund(full);
  const now = deps.now();
  const reference = connector.attemptReference('void', `${request.refundId}:1`);
  await deps.attempts.insert(
    pendingAttempt(
      {
        reference,
        transactionId: payment.id,
        connector: connector.name,
        kind: 'void',
        attempt: 1,
        nextCheckAt: now + VOID_CHECK_AFTER_MS,
        refundId: request.refundId,
        parentReference: paymentReference,
      },
      now,
    ),
  );
  try {
    const accepted = await connector.refund(full);
    await deps.attempts.update(reference, {
      state: 'voided',
      stateAt: deps.now(),
      processorTxnNo: accepted.reference,
      nextCheckAt: null,
    });
    return accepted;
  } catch (error) {
    // Refused: nothing moved. Unknown: left pending for the reconciler (and the merchant's retry).
    if (!(error instanceof ProcessorUnavailable)) {
      await deps.attempts.update(reference, {
        state: 'failed',
        stateAt: deps.now(),
        lastError: error instanceof Error ? error.message : String(error),
        nextCheckAt: null,
      });
    }
    throw error;
  }
}

export type RefundBasics = Pick<
  RefundRequest,
  'refundId' | 'transactionId' | 'merchantId' | 'amountMinor' | 'currency' | 'reason'
>;

/** A pending void is checked once its request has surely ended (a refund request's own timeout is shorter). */
const VOID_CHECK_AFTER_MS = 2 * 60_000;
