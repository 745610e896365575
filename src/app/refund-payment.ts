// Use case: refund (part of) a SUCCESS payment (docs/api.md, "Refund").
//
// Order of work:
//   1. idempotency: the key is the merchant's (Idempotency-Key header or `refund_reference`) or,
//      without one, derived from the normalised content, so the same request twice refunds once.
//      A stored refund with that key answers again (same body); different content → 409. A derived
//      key holds for 24 hours: the same content later is a new refund, stored under the derived
//      key followed by the id of the refund it comes after, so identical requests racing each
//      other then still refund once.
//   2. checks that need no lock, for a quick and clear answer (unknown payment, wrong currency,
//      not SUCCESS, more than refundable, merchant balance too low);
//   3. the processor connector (sandbox: always accepts), outside any database transaction; a
//      connector that declares it cannot refund (capabilities.refunds 'none') is not asked: the
//      refusal names the way that remains (domain/transfer-refund.ts). A refund the merchant already
//      paid by bank transfer skips this step: the transfer's reference stands in for the processor's
//      (`route` of execute; app/record-transfer-refund.ts, docs/api.md "Refunds the processor cannot make");
//   4. ONE database transaction: lock the payment row, check again (a concurrent refund may have
//      won meanwhile), store the refund, move the payment's running total, post the ledger entry
//      (merchant payout − amount, and + amount on clearing at the processor or on the operator
//      adjustment account for a transfer the gateway paid; refused on overdraft; none for a
//      transfer the merchant paid from its own account: domain/refund.ts refundCounterpart) and
//      write the signed `refund` notification to the outbox. Nothing of it exists unless all of it does.
import { fingerprint, type SecretKey } from '../domain/credentials.ts';
import { GatewayError, invalidField } from '../domain/errors.ts';
import { newEventId, uuidv7 } from '../domain/ids.ts';
import { LedgerRefusal, payoutAccount, planPostings, refundPostings, type PlannedPosting } from '../domain/ledger.ts';
import { currencyExponent, formatMinor } from '../domain/money.ts';
import type { NormalisedRefund } from '../domain/refund-request.ts';
import { refundAccepted, refundNotificationBody } from '../domain/refund-response.ts';
import type { RefundResponse } from '../domain/wire/refund.ts';
import {
  BANK_TRANSFER,
  derivedKeyStillHolds,
  paidByTransfer,
  refundCounterpart,
  type RefundRecord,
  type TransferPaidBy,
} from '../domain/refund.ts';
import { processorCannotRefund, TRANSFER_REFERENCE_FIELD } from '../domain/transfer-refund.ts';
import type { TransactionRecord } from '../domain/transaction.ts';
import type { LedgerReads, PaymentStore, RefundReads, Store, UnitOfWork } from './ports/store.ts';
import type { ProcessorAttemptStore } from './ports/processor-store.ts';
import type { ProcessorConnector, RefundAccepted } from './ports/processor.ts';
import { refundAtProcessor } from './processor/refund-at-processor.ts';

export type RefundPaymentDeps = {
  store: Pick<Store, 'unitOfWork' | 'isUniqueViolation'>;
  payments: Pick<PaymentStore, 'findById'>;
  refunds: Pick<RefundReads, 'findByKey'>;
  ledger: Pick<LedgerReads, 'balance'>;
  /** The payment's attempts at its processor (the paid QR a void refers to). */
  attempts: Pick<ProcessorAttemptStore, 'latest' | 'insert' | 'update' | 'find'>;
  key: SecretKey;
  connector: () => ProcessorConnector;
  now: () => number;
  /** Called after the commit (wakes the delivery worker). */
  onRefunded?: (refund: RefundRecord, eventId: string) => void;
};

export type RefundOutcome = { response: RefundResponse; replayed: boolean; refund: RefundRecord };

/**
 * How a refund's money reaches the payer: through the processor connector (the API, the console's
 * Refund), or by a bank transfer already made — by the gateway's operator from the merchant's funds
 * or by the merchant from its own account (`paidBy`) — whose reference is recorded in place of the
 * processor's step. Everything else — the checks, the locked re-check, the refund row, the
 * notification — is the same code for both; the ledger entry follows the route (refundCounterpart).
 */
export type RefundRoute =
  { by: 'processor' } | { by: 'bank_transfer'; transferReference: string; paidBy: TransferPaidBy };

const AT_PROCESSOR: RefundRoute = { by: 'processor' };

const notFound = () =>
  new GatewayError('NOT_FOUND', 'No transaction with that transactionid exists for this merchant.');

export class RefundPayment {
  readonly #deps: RefundPaymentDeps;
  constructor(deps: RefundPaymentDeps) {
    this.#deps = deps;
  }

  /** The stored key: `key:` + the merchant's key, or `content:` + a keyed hash of the normalised content. */
  idempotencyKeyOf(merchantId: string, input: NormalisedRefund): string {
    if (input.idempotencyKey !== null) return `key:${input.idempotencyKey}`;
    return 'content:' + fingerprint(this.#deps.key, refundContent('refund-key', merchantId, input));
  }

  /**
   * A refund by `route`: at the processor (the default), or recorded as paid by bank transfer. A
   * recorded transfer is keyed by its payment and reference, so recording it again answers the
   * first refund and a different amount under the same reference is refused.
   */
  async execute(
    merchantId: string,
    input: NormalisedRefund,
    route: RefundRoute = AT_PROCESSOR,
  ): Promise<RefundOutcome> {
    const { payments, refunds, ledger, key } = this.#deps;
    const byTransfer = route.by === 'bank_transfer' ? route.transferReference : null;
    const transferPaidBy = route.by === 'bank_transfer' ? route.paidBy : null;
    const requestHash = fingerprint(
      key,
      byTransfer === null
        ? refundContent('refund', merchantId, input)
        : JSON.stringify([
            'transfer-refund',
            merchantId,
            input.transactionId,
            input.amountMinor.toString(),
            input.currency,
            transferPaidBy,
          ]),
    );

    const { idempotencyKey, earlier } =
      byTransfer === null
        ? await this.#currentKey(merchantId, input)
        : await this.#transferKey(merchantId, input.transactionId, byTransfer);
    if (earlier) return this.#replay(earlier, requestHash);

    const payment = await payments.findById(merchantId, input.transactionId);
    if (!payment) throw notFound();
    checkRefundable(payment, input);
    if (byTransfer === null) refusedByCapability(this.#deps.connector());
    const processor = byTransfer === null ? this.#deps.connector().name : BANK_TRANSFER;
    // A transfer the merchant paid from its own account posts nothing, so its balance is not asked.
    if (refundCounterpart({ processor, transferPaidBy }) !== null) {
      const available = await ledger.balance(payoutAccount(merchantId, payment.currency));
      if (available < input.amountMinor) throw insufficientBalance(input.amountMinor, available, payment.currency);
    }

    // Stable across retries of the same request, so a live processor can deduplicate on it.
    const refundId = `rfd_${fingerprint(key, JSON.stringify(['refund-id', merchantId, idempotencyKey])).slice(0, 26)}`;
    const accepted: RefundAccepted =
      byTransfer !== null
        ? { reference: byTransfer }
        : await refundAtProcessor(this.#deps, payment, {
            refundId,
            transactionId: payment.id,
            merchantId,
            amountMinor: input.amountMinor,
            currency: payment.currency,
            reason: input.reason,
          });

    const eventId = newEventId();
    const pending: PendingRefund = {
      merchantId,
      input,
      refundId,
      idempotencyKey,
      requestHash,
      eventId,
      processor,
      transferPaidBy,
    };
    let committed: Committed;
    try {
      committed = await this.#deps.store.unitOfWork((uow) => this.#commit(uow, pending, payment.id, accepted));
    } catch (error) {
      // The same request racing itself: the other one stored it first; answer what it answered.
      if (this.#deps.store.isUniqueViolation(error)) {
        const winner = await refunds.findByKey(merchantId, idempotencyKey);
        if (winner) return this.#replay(winner, requestHash);
      }
      throw error;
    }
    if ('raced' in committed) return this.#replay(committed.raced, requestHash);
    this.#deps.onRefunded?.(committed.refund, eventId);
    return {
      response: refundAccepted(committed.refund, committed.payment),
      replayed: false,
      refund: committed.refund,
    };
  }

  /**
   * The key this request is stored under, and the refund that already answers it, if any. A
   * merchant's key is itself. A derived key that a refund has held for 24 hours or more passes
   * on to `<derived key>:after:<that refund's id>`, and so on down the chain: every request with
   * the same content finds the same next key (and so the same refund id), and a refund answers
   * again only within 24 hours of when it was made.
   */
  async #currentKey(
    merchantId: string,
    input: NormalisedRefund,
  ): Promise<{ idempotencyKey: string; earlier: RefundRecord | undefined }> {
    const derived = this.idempotencyKeyOf(merchantId, input);
    let idempotencyKey = derived;
    for (;;) {
      const earlier = await this.#deps.refunds.findByKey(merchantId, idempotencyKey);
      if (!earlier || input.idempotencyKey !== null || derivedKeyStillHolds(earlier, this.#deps.now())) {
        return { idempotencyKey, earlier };
      }
      idempotencyKey = `${derived}:after:${earlier.id}`;
    }
  }

  /** A recorded transfer's key: its payment and reference, never expiring (a transfer happens once). */
  async #transferKey(
    merchantId: string,
    transactionId: string,
    transferReference: string,
  ): Promise<{ idempotencyKey: string; earlier: RefundRecord | undefined }> {
    const idempotencyKey = `transfer:${transactionId}:${transferReference}`;
    return { idempotencyKey, earlier: await this.#deps.refunds.findByKey(merchantId, idempotencyKey) };
  }

  /**
   * Step 4, in one database transaction: with the payment locked, check again, then store the
   * refund, move the refunded total, post the ledger entry and write the notification.
   */
  async #commit(uow: UnitOfWork, p: PendingRefund, paymentId: string, accepted: RefundAccepted): Promise<Committed> {
    const current = await uow.lockPayment(paymentId);
    if (!current || current.merchantId !== p.merchantId) throw notFound();
    // The same request racing itself: with the payment locked, the winner's refund is visible.
    const raced = await uow.findRefundByKey(p.merchantId, p.idempotencyKey);
    if (raced) return { raced };
    checkRefundable(current, p.input);
    const at = this.#deps.now();
    const refund: RefundRecord = {
      id: p.refundId,
      merchantId: p.merchantId,
      transactionId: current.id,
      idempotencyKey: p.idempotencyKey,
      requestHash: p.requestHash,
      amountMinor: p.input.amountMinor,
      currency: current.currency,
      refundedAfterMinor: current.refundedMinor + p.input.amountMinor,
      reason: p.input.reason,
      reference: p.input.reference,
      processor: p.processor,
      processorReference: accepted.reference,
      transferPaidBy: p.transferPaidBy,
      createdAt: at,
    };
    await uow.insertRefund(refund);
    if (!(await uow.addToRefunded(current.id, current.refundedMinor, refund.refundedAfterMinor))) {
      throw new Error(`refund ${refund.id}: the payment's refunded total moved under a held lock`);
    }
    await postRefund(uow, refund, current.trackid, at);
    await uow.insertOutboxEvent({
      id: p.eventId,
      transactionId: current.id,
      merchantId: p.merchantId,
      targetUrl: current.serverUrl,
      refundId: refund.id,
      payload: refundNotificationBody({
        ...refund,
        eventId: p.eventId,
        paymentTrackid: current.trackid,
        paymentToken: current.token,
        capturedMinor: current.amountMinor,
      }),
      createdAt: at,
    });
    return { refund, payment: current };
  }

  async #replay(earlier: RefundRecord, requestHash: string): Promise<RefundOutcome> {
    if (earlier.requestHash !== requestHash && paidByTransfer(earlier)) {
      const amount = `${formatMinor(earlier.amountMinor, currencyExponent(earlier.currency))} ${earlier.currency}`;
      throw new GatewayError(
        'IDEMPOTENCY_KEY_REUSED',
        `The ${TRANSFER_REFERENCE_FIELD} ${earlier.processorReference} was already recorded for this payment, ` +
          `as a refund of ${amount} paid by the ${earlier.transferPaidBy} (${earlier.id}); nothing was ` +
          'recorded. A transfer of another amount has a reference of its own.',
      );
    }
    if (earlier.requestHash !== requestHash) {
      throw new GatewayError(
        'IDEMPOTENCY_KEY_REUSED',
        'This idempotency key was already used for a different refund request; use a new key for a new refund.',
      );
    }
    const payment = await this.#deps.payments.findById(earlier.merchantId, earlier.transactionId);
    if (!payment) throw new Error(`refund ${earlier.id} without its payment`);
    return { response: refundAccepted(earlier, payment), replayed: true, refund: earlier };
  }
}

/**
 * The normalised content of a refund request, as hashed for its derived idempotency key
 * (`purpose` 'refund-key') and for the stored request hash ('refund') that tells a replay from a
 * different request under the same key.
 */
function refundContent(purpose: 'refund' | 'refund-key', merchantId: string, input: NormalisedRefund): string {
  return JSON.stringify([
    purpose,
    merchantId,
    input.transactionId,
    input.amountMinor.toString(),
    input.currency,
    input.reason,
    input.reference,
  ]);
}

/** What a refund carries from its checks into its transaction. */
type PendingRefund = {
  merchantId: string;
  input: NormalisedRefund;
  refundId: string;
  idempotencyKey: string;
  requestHash: string;
  eventId: string;
  /** The connector's name, or BANK_TRANSFER. */
  processor: string;
  /** Who sent a BANK_TRANSFER refund's transfer; null at the processor. */
  transferPaidBy: TransferPaidBy | null;
};

type Committed = { refund: RefundRecord; payment: TransactionRecord } | { raced: RefundRecord };

/**
 * The refund's journal entry: merchant payout − amount, and + amount on clearing (at the processor)
 * or on the operator adjustment account (a transfer the gateway paid); an overdraft is refused. A
 * transfer the merchant paid from its own account moved none of the money the gateway holds: no
 * entry (docs/ledger.md "Postings of each event").
 */
async function postRefund(uow: UnitOfWork, refund: RefundRecord, paymentTrackid: string, at: number): Promise<void> {
  const counterpart = refundCounterpart(refund);
  if (counterpart === null) return;
  const lines = refundPostings(refund.merchantId, refund.currency, refund.amountMinor, counterpart);
  const states = await uow.lockAccounts(
    lines.map((l) => l.account),
    at,
  );
  let planned: PlannedPosting[];
  try {
    planned = planPostings(lines, states);
  } catch (error) {
    if (error instanceof LedgerRefusal && error.reason === 'OVERDRAFT') {
      const available = await uow.balance(payoutAccount(refund.merchantId, refund.currency));
      throw insufficientBalance(refund.amountMinor, available, refund.currency);
    }
    throw error;
  }
  const entry = {
    id: uuidv7(at),
    kind: 'refund' as const,
    merchantId: refund.merchantId,
    transactionId: null,
    idempotencyKey: `refund:${refund.id}`,
    reason:
      `refund ${refund.id} of payment ${paymentTrackid}` +
      (paidByTransfer(refund) ? ` (bank transfer ${refund.processorReference} paid by the gateway)` : ''),
    createdAt: at,
  };
  await uow.insertEntry(entry, planned);
}

/** Whether `input` may refund `payment` as it stands; the console's confirmation step asks it too. */
export function checkRefundable(payment: TransactionRecord, input: NormalisedRefund): void {
  if (input.currency !== payment.currency)
    throw invalidField('bill_currencycode', `it must be the payment's currency, ${payment.currency}`);
  if (payment.status !== 'SUCCESS') {
    const state = payment.status === 'PROCESSING' ? 'still processing' : 'not successful';
    throw new GatewayError(
      'REFUND_NOT_ALLOWED',
      `Only a successful payment can be refunded; this payment is ${state}.`,
    );
  }
  const refundable = payment.amountMinor - payment.refundedMinor;
  if (input.amountMinor > refundable) {
    const exponent = currencyExponent(payment.currency);
    throw new GatewayError(
      'REFUND_EXCEEDS_AVAILABLE',
      `The refund of ${formatMinor(input.amountMinor, exponent)} ${payment.currency} is more than the ` +
        `${formatMinor(refundable, exponent)} ${payment.currency} still refundable ` +
        `(captured ${formatMinor(payment.amountMinor, exponent)}, ` +
        `refunded ${formatMinor(payment.refundedMinor, exponent)}).`,
    );
  }
}

/**
 * A connector that declares it cannot refund is not asked (docs/architecture.md "Connectors"): the
 * merchant is told at once, with the way that remains.
 */
function refusedByCapability(connector: ProcessorConnector): void {
  if (connector.capabilities.refunds === 'none')
    throw processorCannotRefund(
      `This payment's processor (${connector.name}) cannot make refunds through its API; nothing was refunded.`,
    );
}

function insufficientBalance(amountMinor: bigint, availableMinor: bigint, currency: string): GatewayError {
  return new GatewayError(
    'INSUFFICIENT_BALANCE',
    `The merchant's available balance (${formatMinor(availableMinor, 4)} ${currency}) cannot cover the refund of ` +
      `${formatMinor(amountMinor, currencyExponent(currency))} ${currency}; nothing was refunded.`,
  );
}
