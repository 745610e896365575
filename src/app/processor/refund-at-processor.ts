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
  attempts: Pick<ProcessorAttemptStore, 'latest' | 'insert' | 'update' | 'find'>;
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
  const written = await deps.attempts.insert(
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
  if (!written) {
    // Another request of this same refund wrote the void first. Without this wait both sent the
    // void with the same partnerTxnUid at once (two instances: test/connectors/kbank/two-instances.test.ts):
    // KBank applied one and refused the other as a repeat, which the spec forbids provoking (§6.5).
    const other = await waitForOther(deps, reference);
    if (other?.state === 'voided') return { reference: other.processorTxnNo ?? reference };
    // Not in flight: an earlier try whose answer never came, or one refused. Asked again as
    // before: the connector inquires first and never voids twice.
  }
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
    // Refused: nothing moved. Unknown: left pending for the reconciler (and the merchant's retry),
    // with its error, which tells a later request of the same refund that this one is over.
    if (error instanceof ProcessorUnavailable) {
      await deps.attempts.update(reference, { lastError: error.message });
    } else {
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

/**
 * Waits while another request of the same refund is at the processor (its void attempt pending and
 * without an error); the attempt as it is then. Throws ProcessorUnavailable when it takes too long.
 */
async function waitForOther(deps: RefundAtProcessorDeps, reference: string) {
  for (let waited = 0; waited < WAIT_FOR_OTHER_MS; waited += POLL_MS) {
    const attempt = await deps.attempts.find(reference);
    if (attempt?.state !== 'pending' || attempt.lastError !== null) return attempt;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new ProcessorUnavailable('This refund is being made by another request; send it again shortly.', true);
}

/** How long a request waits for another request of the same refund at the processor. */
const WAIT_FOR_OTHER_MS = 10_000;
const POLL_MS = 50;

/** A pending void is checked once its request has surely ended (a refund request's own timeout is shorter). */
const VOID_CHECK_AFTER_MS = 2 * 60_000;
