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
    // KBank applied one and refused the other as a repeat, which we never provoke (docs/connectors/kbank.md "Refunds").
    const other = await waitForOther(deps, reference);
    if (other?.state === 'voided') return { reference: other.processorTxnNo ?? reference };
    // Not in flight (any more): an earlier try whose answer never came, one refused, or one whose
    // instance died. Asked again: the connector inquires first and never voids twice.
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
 * Waits while another request of the same refund may be at the processor: its void attempt
 * pending, without an error, and written less than WAIT_FOR_OTHER_MS ago. The attempt as it is
 * then. An attempt still pending after that was left by a request that died (a crash) or is very
 * slow: the caller goes on, and the connector's inquiry-first finds a void that was applied; the
 * void's id is the same, so the processor never applies two.
 */
async function waitForOther(deps: RefundAtProcessorDeps, reference: string) {
  for (let waited = 0; ; waited += POLL_MS) {
    const attempt = await deps.attempts.find(reference);
    if (attempt?.state !== 'pending' || attempt.lastError !== null) return attempt;
    if (waited >= WAIT_FOR_OTHER_MS || deps.now() - attempt.stateAt >= WAIT_FOR_OTHER_MS) return attempt;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** How long a request waits for another request of the same refund at the processor, at most. */
const WAIT_FOR_OTHER_MS = 10_000;
const POLL_MS = 50;

/** A pending void is checked once its request has surely ended (a refund request's own timeout is shorter). */
const VOID_CHECK_AFTER_MS = 2 * 60_000;
