// How a payment ends when nobody paid it: by expiry or by the customer's Cancel. With a
// processor that builds the QR (capabilities.qr 'processor'), the QR is closed there first
// (close-payment.ts); otherwise the payment ends at once, as in the sandbox.
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { CompletePayment } from '../complete-payment.ts';
import type { ProcessorConnector } from '../ports/processor.ts';
import type { PaymentStore } from '../ports/store.ts';
import type { ClosePayment, CloseResult } from './close-payment.ts';

export type EndPaymentDeps = {
  connector: () => ProcessorConnector;
  payments: Pick<PaymentStore, 'get'>;
  close: Pick<ClosePayment, 'close'>;
  complete: Pick<CompletePayment, 'execute'>;
};

export class EndPayment {
  readonly #deps: EndPaymentDeps;
  constructor(deps: EndPaymentDeps) {
    this.#deps = deps;
  }

  /** Expires a payment past its deadline; 'open' when the processor could not be asked (try again later). */
  async expire(transactionId: string): Promise<CloseResult> {
    if (!this.#closesAtProcessor()) {
      await this.#deps.complete.execute(transactionId, 'expire');
      return 'closed';
    }
    const transaction = await this.#deps.payments.get(transactionId);
    if (!transaction) throw new Error(`no transaction ${transactionId}`);
    return this.#deps.close.close(transaction, 'expire');
  }

  /** The customer's Cancel on the hosted page. */
  async cancel(transaction: TransactionRecord): Promise<CloseResult> {
    if (!this.#closesAtProcessor()) {
      await this.#deps.complete.execute(transaction.id, 'cancel');
      return 'closed';
    }
    return this.#deps.close.close(transaction, 'cancel');
  }

  #closesAtProcessor(): boolean {
    return this.#deps.connector().capabilities.qr === 'processor';
  }
}
