// Use case: refund (part of) a SUCCESS payment (issue 9; docs/api.md "Refund").
//
// Order of work:
//   1. idempotency: the key is the merchant's (Idempotency-Key header or `refund_reference`) or,
//      without one, derived from the normalised content, so the same request twice refunds once.
//      A stored refund with that key answers again (same body); different content → 409.
//   2. checks that need no lock, for a quick and clear answer (unknown payment, wrong currency,
//      not SUCCESS, more than refundable, merchant balance too low);
//   3. the processor connector (sandbox: always accepts), outside any database transaction;
//   4. ONE database transaction: lock the payment row, check again (a concurrent refund may have
//      won meanwhile), store the refund, move the payment's running total, post the ledger entry
//      (merchant payout − amount, clearing + amount; refused on overdraft) and write the signed
//      `refund` notification to the outbox. Nothing of it exists unless all of it does.
import { fingerprint, type SecretKey } from '../domain/credentials.ts';
import { GatewayError, invalidField } from '../domain/errors.ts';
import { newEventId, uuidv7 } from '../domain/ids.ts';
import { LedgerRefusal, payoutAccount, refundPostings } from '../domain/ledger.ts';
import { currencyExponent, formatMinor } from '../domain/money.ts';
import type { NormalisedRefund } from '../domain/refund-request.ts';
import { refundAccepted, refundNotificationBody, type RefundResponse } from '../domain/refund-response.ts';
import type { LedgerRepo } from '../store/repos/ledger.repo.ts';
import type { StoreEngine } from '../store/engine.ts';
import { insertOutboxEvent } from '../store/repos/outbox.repo.ts';
import type { RefundsRepo } from '../store/repos/refunds.repo.ts';
import type { RefundRecord } from '../domain/refund.ts';
import { isUniqueViolation } from '../store/repos/ledger.repo.ts';
import type { TransactionsRepo } from '../store/repos/transactions.repo.ts';
import type { TransactionRecord } from '../domain/transaction.ts';
import type { ProcessorConnector } from './processor-connector.ts';

export type RefundPaymentDeps = {
  store: StoreEngine;
  transactions: TransactionsRepo;
  refunds: RefundsRepo;
  ledger: LedgerRepo;
  key: SecretKey;
  connector: () => ProcessorConnector;
  now: () => number;
  /** Called after the commit (wakes the delivery worker). */
  onRefunded?: (refund: RefundRecord, eventId: string) => void;
};

export type RefundOutcome = { response: RefundResponse; replayed: boolean; refund: RefundRecord };

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
    return `content:${fingerprint(this.#deps.key, JSON.stringify(['refund-key', merchantId, input.transactionId, input.amountMinor.toString(), input.currency, input.reason, input.reference]))}`;
  }

  async execute(merchantId: string, input: NormalisedRefund): Promise<RefundOutcome> {
    const { transactions, refunds, ledger, key, now } = this.#deps;
    const idempotencyKey = this.idempotencyKeyOf(merchantId, input);
    const requestHash = fingerprint(
      key,
      JSON.stringify([
        'refund',
        merchantId,
        input.transactionId,
        input.amountMinor.toString(),
        input.currency,
        input.reason,
        input.reference,
      ]),
    );

    const earlier = await refunds.findByKey(merchantId, idempotencyKey);
    if (earlier) return this.#replay(earlier, requestHash);

    const payment = await transactions.findById(merchantId, input.transactionId);
    if (!payment) throw notFound();
    checkRefundable(payment, input);
    const available = await ledger.balance(payoutAccount(merchantId, payment.currency));
    if (available < input.amountMinor) throw insufficientBalance(input.amountMinor, available, payment.currency);

    // Stable across retries of the same request, so a live processor can deduplicate on it.
    const refundId = `rfd_${fingerprint(key, JSON.stringify(['refund-id', merchantId, idempotencyKey])).slice(0, 26)}`;
    const accepted = await this.#deps.connector().refund({
      refundId,
      transactionId: payment.id,
      merchantId,
      amountMinor: input.amountMinor,
      currency: payment.currency,
      reason: input.reason,
    });

    const eventId = newEventId();
    let committed: { refund: RefundRecord; payment: TransactionRecord } | { raced: RefundRecord };
    try {
      committed = await this.#deps.store.transaction(async (trx) => {
        const current = await transactions.lockById(trx, payment.id, this.#deps.store.dialect);
        if (!current || current.merchantId !== merchantId) throw notFound();
        // The same request racing itself: with the payment locked, the winner's refund is visible.
        const raced = await refunds.findByKey(merchantId, idempotencyKey, trx);
        if (raced) return { raced };
        checkRefundable(current, input);
        const at = now();
        const refund: RefundRecord = {
          id: refundId,
          merchantId,
          transactionId: current.id,
          idempotencyKey,
          requestHash,
          amountMinor: input.amountMinor,
          currency: current.currency,
          refundedAfterMinor: current.refundedMinor + input.amountMinor,
          reason: input.reason,
          reference: input.reference,
          processor: this.#deps.connector().name,
          processorReference: accepted.reference,
          createdAt: at,
        };
        await refunds.insert(trx, refund);
        if (!(await refunds.addToRefunded(trx, current.id, current.refundedMinor, refund.refundedAfterMinor))) {
          throw new Error(`refund ${refundId}: the payment's refunded total moved under a held lock`);
        }
        try {
          await ledger.post(
            trx,
            {
              id: uuidv7(at),
              kind: 'refund',
              merchantId,
              transactionId: null,
              idempotencyKey: `refund:${refundId}`,
              reason: `refund ${refundId} of payment ${current.trackid}`,
              createdAt: at,
            },
            refundPostings(merchantId, current.currency, input.amountMinor),
          );
        } catch (error) {
          if (error instanceof LedgerRefusal && error.reason === 'OVERDRAFT') {
            throw insufficientBalance(
              input.amountMinor,
              await ledger.balance(payoutAccount(merchantId, current.currency), trx),
              current.currency,
            );
          }
          throw error;
        }
        await insertOutboxEvent(trx, {
          id: eventId,
          transactionId: current.id,
          merchantId,
          targetUrl: current.serverUrl,
          refundId,
          payload: refundNotificationBody({
            ...refund,
            eventId,
            paymentTrackid: current.trackid,
            paymentToken: current.token,
            capturedMinor: current.amountMinor,
          }),
          createdAt: at,
        });
        return { refund, payment: current };
      });
    } catch (error) {
      // The same request racing itself: the other one stored it first; answer what it answered.
      if (isUniqueViolation(error)) {
        const winner = await refunds.findByKey(merchantId, idempotencyKey);
        if (winner) return this.#replay(winner, requestHash);
      }
      throw error;
    }
    if ('raced' in committed) return this.#replay(committed.raced, requestHash);
    this.#deps.onRefunded?.(committed.refund, eventId);
    return {
      response: refundAccepted(committed.refund, committed.payment.amountMinor),
      replayed: false,
      refund: committed.refund,
    };
  }

  async #replay(earlier: RefundRecord, requestHash: string): Promise<RefundOutcome> {
    if (earlier.requestHash !== requestHash) {
      throw new GatewayError(
        'IDEMPOTENCY_KEY_REUSED',
        'This idempotency key was already used for a different refund request; use a new key for a new refund.',
      );
    }
    const payment = await this.#deps.transactions.findById(earlier.merchantId, earlier.transactionId);
    if (!payment) throw new Error(`refund ${earlier.id} without its payment`);
    return { response: refundAccepted(earlier, payment.amountMinor), replayed: true, refund: earlier };
  }
}

function checkRefundable(payment: TransactionRecord, input: NormalisedRefund): void {
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
      `The refund of ${formatMinor(input.amountMinor, exponent)} ${payment.currency} is more than the ${formatMinor(refundable, exponent)} ${payment.currency} still refundable ` +
        `(captured ${formatMinor(payment.amountMinor, exponent)}, refunded ${formatMinor(payment.refundedMinor, exponent)}).`,
    );
  }
}

function insufficientBalance(amountMinor: bigint, availableMinor: bigint, currency: string): GatewayError {
  return new GatewayError(
    'INSUFFICIENT_BALANCE',
    `The merchant's available balance (${formatMinor(availableMinor, 4)} ${currency}) cannot cover the refund of ${formatMinor(amountMinor, currencyExponent(currency))} ${currency}; nothing was refunded.`,
  );
}
