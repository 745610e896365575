// The processor's QR of a payment, created lazily at the first view of the hosted page and kept
// (docs/connectors/kbank.md "The QR"). Initiation never waits for the processor, and the
// processor's clock starts when the customer looks.
//
// One QR per payment at a time, across instances: each attempt is a row written BEFORE the
// processor is asked (unique per transaction and attempt number), so racing views agree on who
// creates it, and a crash between the processor's answer and our write leaves a `pending` row.
// A pending attempt is settled by a query, never by asking again with the same id (the processor
// refuses a repeated id and would not return the QR): if the processor has it, it is cancelled
// (its QR text was never learnt) and the next attempt is created, so the customer sees one QR.
import { pendingAttempt, type ProcessorAttempt } from '../../domain/processor-attempt.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../domain/processor-errors.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { thaiQrIsFor, thaiQrReferenceFor, verifyThaiQrPayload } from '../../domain/thai-qr.ts';
import type { ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector } from '../ports/processor.ts';
import { firstCheck } from './check-schedule.ts';
import type { SyncPayment } from './sync-payment.ts';

/** How long a view waits for another instance's create of the same attempt. */
const WAIT_FOR_OTHER_MS = 5_000;
const POLL_MS = 100;
/** Attempts per payment at most (each failed one is a processor request). */
const MAX_ATTEMPTS = 5;
/** Payments whose QR this process remembers (the open pages being looked at; the oldest forgotten first). */
const REMEMBERED_QRS = 10_000;

export type PaymentQrDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'insert' | 'latest' | 'update'>;
  sync: Pick<SyncPayment, 'applyTo'>;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
};

/** A QR the page can show: the processor's text, its deadline and who issued it. */
export type ShownQr = { payload: string; expiresAt: number; issuer: string; accountName: string | null };

export class PaymentQr {
  readonly #deps: PaymentQrDeps;
  /** One create per payment in this process at a time (views of one page arrive together). */
  readonly #inFlight = new Map<string, Promise<ShownQr | undefined>>();
  /**
   * The QR shown for each payment, kept until the processor's deadline: a QR is only ever replaced
   * once it is no longer alive, so a repeat view (the page's reloads, Save QR) needs no read.
   * The caller checks the payment is still PROCESSING from its own read of the row.
   */
  readonly #shown = new Map<string, ShownQr>();

  constructor(deps: PaymentQrDeps) {
    this.#deps = deps;
  }

  /**
   * The QR to show for a PROCESSING payment, creating it at the processor when there is none
   * alive. Undefined when the payment turned out paid meanwhile (the caller reads it again).
   * Throws ProcessorUnavailable (or the processor's refusal) when none can be had now; the
   * payment stays open and a later view tries again.
   */
  ensure(transaction: TransactionRecord): Promise<ShownQr | undefined> {
    const remembered = this.#shown.get(transaction.id);
    if (remembered && remembered.expiresAt > this.#deps.now()) return Promise.resolve(remembered);
    const running = this.#inFlight.get(transaction.id);
    if (running) return running;
    const work = this.#ensure(transaction)
      .then((shown) => this.#remember(transaction.id, shown))
      .finally(() => this.#inFlight.delete(transaction.id));
    this.#inFlight.set(transaction.id, work);
    return work;
  }

  async #ensure(transaction: TransactionRecord): Promise<ShownQr | undefined> {
    for (let round = 0; round < MAX_ATTEMPTS; round++) {
      const latest = await this.#deps.attempts.latest(transaction.id, 'qr');
      const shown = latest && this.#alive(latest);
      if (shown) return shown;
      if (latest?.state === 'paid' || latest?.state === 'voided') return undefined;
      if (latest?.state === 'pending') {
        if (!(await this.#settle(transaction, latest))) return undefined;
        continue;
      }
      const next = (latest?.attempt ?? 0) + 1;
      const created = await this.#create(transaction, next);
      if (created) return created;
    }
    throw new ProcessorUnavailable('The bank could not create a QR for this payment; try again shortly.', false);
  }

  #remember(transactionId: string, shown: ShownQr | undefined): ShownQr | undefined {
    this.#shown.delete(transactionId);
    if (!shown) return undefined;
    this.#shown.set(transactionId, shown);
    if (this.#shown.size > REMEMBERED_QRS) this.#shown.delete(this.#shown.keys().next().value!);
    return shown;
  }

  /** The attempt's QR while the processor still accepts payment on it. */
  #alive(attempt: ProcessorAttempt): ShownQr | undefined {
    if (attempt.state !== 'requested' || attempt.qrPayload === null || attempt.expiresAt === null) return undefined;
    if (attempt.expiresAt <= this.#deps.now()) return undefined;
    return {
      payload: attempt.qrPayload,
      expiresAt: attempt.expiresAt,
      issuer: attempt.issuer ?? this.#deps.connector().name,
      accountName: attempt.accountName,
    };
  }

  /**
   * A pending attempt: written, then the processor did not answer (or we crashed). Asks what the
   * processor has: a QR we never learnt is cancelled so that only the next one can be paid. A
   * processor that cannot cancel (SCB) keeps it, unseen, as requested: the reconciler checks it
   * until the processor reports it expired, and a payment on it is applied like any other.
   * False when it turned out paid (the sync completed the payment).
   */
  async #settle(transaction: TransactionRecord, attempt: ProcessorAttempt): Promise<boolean> {
    const connector = this.#deps.connector();
    const status = await connector.queryPayment(attempt.reference, attempt.createdAt);
    if (status.state === 'requested' && connector.capabilities.cancel) {
      const outcome = await connector.cancelPayment(attempt.reference);
      if (outcome === 'paid') {
        const paid = await connector.queryPayment(attempt.reference, attempt.createdAt);
        await this.#deps.sync.applyTo(transaction, attempt, paid);
        return false;
      }
      await this.#deps.attempts.update(attempt.reference, {
        state: 'cancelled',
        stateAt: this.#deps.now(),
        nextCheckAt: null,
        lastError: 'created without an answer; cancelled so that only the next QR can be paid',
      });
      return true;
    }
    const result = await this.#deps.sync.applyTo(transaction, attempt, status);
    return result === 'unchanged' && status.state !== 'paid';
  }

  /** Creates attempt `n`, or waits for the instance that is creating it. Undefined: try the next round. */
  async #create(transaction: TransactionRecord, n: number): Promise<ShownQr | undefined> {
    const connector = this.#deps.connector();
    const now = this.#deps.now();
    const reference = connector.attemptReference('qr', `${transaction.id}:${n}`);
    const written = await this.#deps.attempts.insert(
      pendingAttempt(
        {
          reference,
          transactionId: transaction.id,
          connector: connector.name,
          kind: 'qr',
          attempt: n,
          // The reconciler settles it if this instance dies before it hears back.
          nextCheckAt: firstCheck(now),
        },
        now,
      ),
    );
    if (!written) return this.#waitForOther(transaction.id, n);
    let qr;
    try {
      qr = await connector.createPayment({
        transactionId: transaction.id,
        merchantId: transaction.merchantId,
        amountMinor: transaction.amountMinor,
        currency: transaction.currency,
        reference1: thaiQrReferenceFor(transaction.id),
        attemptId: reference,
      });
    } catch (error) {
      await this.#failed(reference, error);
      throw error;
    }
    try {
      checkShown(qr.qrPayload, transaction.amountMinor);
    } catch (error) {
      // Never shown: closed at the processor (when it can close one) so that nobody can pay it.
      if (connector.capabilities.cancel) await connector.cancelPayment(reference).catch(() => undefined);
      await this.#failed(reference, error);
      throw new ProcessorUnavailable('The bank returned a QR that does not match this payment.', false);
    }
    await this.#deps.attempts.update(reference, {
      state: 'requested',
      stateAt: this.#deps.now(),
      qrPayload: qr.qrPayload,
      expiresAt: qr.expiresAt,
      accountName: qr.accountName,
      issuer: qr.issuer,
    });
    return { payload: qr.qrPayload, expiresAt: qr.expiresAt, issuer: qr.issuer, accountName: qr.accountName };
  }

  /** A create that failed: certainly nothing at the processor (failed), or maybe something (pending, checked soon). */
  async #failed(reference: string, error: unknown): Promise<void> {
    const unknown = error instanceof ProcessorUnavailable && error.outcomeUnknown;
    await this.#deps.attempts.update(reference, {
      state: unknown ? 'pending' : 'failed',
      stateAt: this.#deps.now(),
      lastError: error instanceof Error ? error.message : String(error),
      nextCheckAt: unknown ? this.#deps.now() : null,
    });
  }

  async #waitForOther(transactionId: string, n: number): Promise<ShownQr | undefined> {
    const sleep = this.#deps.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
    for (let waited = 0; waited < WAIT_FOR_OTHER_MS; waited += POLL_MS) {
      const latest = await this.#deps.attempts.latest(transactionId, 'qr');
      if (!latest || latest.attempt !== n || latest.state !== 'pending') return undefined;
      await sleep(POLL_MS);
    }
    throw new ProcessorUnavailable(
      'The bank is taking long to create this payment\u2019s QR; try again shortly.',
      true,
    );
  }
}

/** The processor's QR must be a valid Thai QR for exactly this amount in baht before anyone sees it. */
function checkShown(payload: string, amountMinor: bigint): void {
  const verified = verifyThaiQrPayload(payload);
  if (!verified.ok) throw new ProcessorMismatch(`the processor's QR does not verify: ${verified.errors.join('; ')}`);
  if (!thaiQrIsFor(verified, amountMinor)) {
    throw new ProcessorMismatch("the processor's QR is not for this payment's amount in baht");
  }
}
