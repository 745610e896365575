// Use case: the customer's side of a payment, behind the hosted page (docs/hosted-page.md,
// "Routes"). The page is addressed by its redirect id. A payment whose deadline passed while it
// was still PROCESSING is expired here, lazily, as the sweeper would (processor/end-payment.ts:
// with a live processor, its QR is closed there first), before the page is shown: the customer
// never sees a QR that can no longer be paid, even if the expiry sweeper has not come round yet.
// With a processor that builds the QR, the page shows the processor's QR, created at the first
// view (processor/payment-qr.ts). The way back to the shop is signed with the merchant's webhook
// secrets, as notifications are (docs/hosted-page.md "Back to the merchant").
import { GatewayError, isGatewayError } from '../domain/errors.ts';
import { ProcessorUnavailable } from '../domain/processor-errors.ts';
import type { SecretKey } from '../domain/credentials.ts';
import { hasKeyedShape, transactionIdOf } from '../domain/keyed-ids.ts';
import type { CompletionCause } from '../domain/lifecycle.ts';
import { returnSignatureParameters } from '../domain/return-parameters.ts';
import { OpenedSecrets, signingSecrets } from '../domain/signing-secrets.ts';
import type { TransactionRecord } from '../domain/transaction.ts';
import type { CompletePayment } from './complete-payment.ts';
import type { MerchantDirectory } from './merchant-directory.ts';
import type { NotificationWaits, WaitOutcome } from './notification-waits.ts';
import type { MerchantStore, PaymentStore } from './ports/store.ts';
import type { ProcessorConnector } from './ports/processor.ts';
import type { EndPayment } from './processor/end-payment.ts';
import type { PaymentQr, ShownQr } from './processor/payment-qr.ts';

export type HostedPageDeps = {
  payments: Pick<PaymentStore, 'findByRedirectId'>;
  connector: () => ProcessorConnector;
  end: Pick<EndPayment, 'expire' | 'cancel'>;
  paymentQr: Pick<PaymentQr, 'ensure'>;
  merchants: Pick<MerchantStore, 'findById'>;
  directory: Pick<MerchantDirectory, 'get'>;
  complete: Pick<CompletePayment, 'execute'>;
  notificationWaits: Pick<NotificationWaits, 'waitForFirstAttempt'>;
  /** RETURN_WAIT_FOR_NOTIFICATION: how long a customer sent back waits for the shop's notification. */
  returnWaitForNotificationMs: number;
  /** Checks the MAC of keyed redirect ids; opens the sealed webhook secrets that sign the return parameters. */
  key: SecretKey;
  now: () => number;
};

export class HostedPage {
  readonly #deps: HostedPageDeps;
  readonly #opened: OpenedSecrets;
  constructor(deps: HostedPageDeps) {
    this.#deps = deps;
    this.#opened = new OpenedSecrets(deps.key);
  }

  /** The payment behind a redirect id as it stands, its passed deadline recorded first (expired). */
  async loadPaymentPage(redirectId: string): Promise<TransactionRecord | undefined> {
    const { end, now } = this.#deps;
    const found = await this.#find(redirectId);
    if (!found || found.status !== 'PROCESSING' || now() < found.expiresAt) return found;
    try {
      // 'open': the processor could not be asked to close its QR; the payment stays payable.
      await end.expire(found.id);
      return await this.#find(redirectId);
    } catch (error) {
      // Finalised meanwhile (the sweeper, another tab): show what won.
      if (isGatewayError(error) && error.tag === 'INVALID_STATE') return this.#find(redirectId);
      throw error;
    }
  }

  /**
   * The payment behind a redirect id while its QR can still be paid (PROCESSING, before its
   * deadline), without expiring it: the "Save QR" download answers 404 otherwise.
   */
  async openPayment(redirectId: string): Promise<TransactionRecord | undefined> {
    const found = await this.#find(redirectId);
    if (!found || found.status !== 'PROCESSING' || this.#deps.now() >= found.expiresAt) return undefined;
    return found;
  }

  /**
   * The payment behind a redirect id: a keyed id (domain/keyed-ids.ts) only when its MAC verifies,
   * then by the transaction id it carries; an id of the earlier form as it is. A forged, truncated
   * or borrowed id, or a token, finds nothing, exactly like an unknown id (the page's 404).
   */
  #find(redirectId: string): Promise<TransactionRecord | undefined> {
    const { payments, key } = this.#deps;
    if (!hasKeyedShape(redirectId)) return payments.findByRedirectId(redirectId, undefined);
    const carried = transactionIdOf(key, 'redirect-id', redirectId);
    return carried === undefined ? Promise.resolve(undefined) : payments.findByRedirectId(redirectId, carried);
  }

  /** The name the customer sees: the merchant's, or its id if the merchant is gone. */
  async merchantName(t: TransactionRecord): Promise<string> {
    const { directory, merchants } = this.#deps;
    return (directory.get(t.merchantId) ?? (await merchants.findById(t.merchantId)))?.name ?? t.merchantId;
  }

  /** True when the customer pays in a banking app and the page shows the processor's QR (no Confirm). */
  get processorQr(): boolean {
    return this.#deps.connector().capabilities.qr === 'processor';
  }

  /**
   * What the customer may do on an open payment's page: Confirm only on the sandbox's own QR in
   * sandbox mode (nobody confirms a bank's QR: a banking app pays it); Cancel in sandbox mode and
   * on every processor QR, where it closes the QR at the processor first (docs/hosted-page.md).
   */
  actions(sandboxMode: boolean): { confirm: boolean; cancel: boolean } {
    const processorQr = this.processorQr;
    return { confirm: sandboxMode && !processorQr, cancel: sandboxMode || processorQr };
  }

  /**
   * The processor's QR for a PROCESSING payment (created at the first view), or undefined when
   * the payment was found paid meanwhile. Throws ProcessorUnavailable when the processor cannot
   * create one now: the page says so and offers a retry; the payment stays open.
   */
  processorQrFor(t: TransactionRecord): Promise<ShownQr | undefined> {
    return this.#deps.paymentQr.ensure(t);
  }

  /**
   * The customer's confirm (sandbox only) or cancel: the payment as completed, or undefined when
   * another completion won the race (a double click, the sweeper). Throws ProcessorUnavailable
   * when the processor could not be asked to close its QR: the payment stays open (and payable).
   */
  async finish(
    t: TransactionRecord,
    cause: Extract<CompletionCause, 'confirm' | 'cancel'>,
  ): Promise<TransactionRecord | undefined> {
    try {
      if (cause === 'cancel') {
        const result = await this.#deps.end.cancel(t);
        if (result === 'open') {
          throw new ProcessorUnavailable('The bank could not be asked to close this QR; try again shortly.', false);
        }
        return await this.#find(t.redirectId);
      }
      // A banking app pays a processor's QR; nobody confirms it on the page.
      if (this.processorQr) throw new GatewayError('NOT_FOUND', 'This payment is confirmed by the bank, not here.');
      return await this.#deps.complete.execute(t.id, cause);
    } catch (error) {
      if (isGatewayError(error) && error.tag === 'INVALID_STATE') return undefined;
      throw error;
    }
  }

  /**
   * Bounded wait for the first delivery attempt of the result notification, so the shop hears
   * the result before the customer is sent back (docs/hosted-page.md, "Back to the merchant").
   */
  waitForNotification(t: TransactionRecord): Promise<WaitOutcome> {
    return this.#deps.notificationWaits.waitForFirstAttempt(t.id, this.#deps.returnWaitForNotificationMs);
  }

  /**
   * `ts` and `signature` for the return parameters of a final payment, signed now with the
   * secrets its notification signs with (the current one, and the previous one during a
   * rotation's overlap). Empty when the merchant is gone or its secret cannot be opened (the
   * gateway key changed): the customer still goes back, and the shop, finding no signature,
   * asks /transaction/status as it must for any unsigned return.
   */
  async returnSignature(t: TransactionRecord): Promise<Array<[string, string]>> {
    const { directory, merchants, key, now } = this.#deps;
    const merchant = directory.get(t.merchantId) ?? (await merchants.findById(t.merchantId));
    if (!merchant) return [];
    const nowMs = now();
    let secrets: string[];
    try {
      secrets = signingSecrets(merchant, key, nowMs, this.#opened);
    } catch {
      return [];
    }
    return returnSignatureParameters(t, secrets, nowMs);
  }
}
