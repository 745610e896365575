// What the console shows of payments: the search, one payment looked up for whoever asks, and
// that payment's whole story (timeline, notification and its attempts, refunds with theirs,
// ledger entries; for operators, its life at the processor). A merchant's reads carry its
// merchantid, so another merchant's payment is the same "not found" as one that does not exist
// (docs/console.md "Pages").
import { GatewayError } from '../../domain/errors.ts';
import type { EntryWithPostings } from '../../domain/ledger.ts';
import type { DeliveryAttempt, OutboxEvent } from '../../domain/outbox-event.ts';
import type { AttentionItem, ProcessorAttempt, ProcessorNotification } from '../../domain/processor-attempt.ts';
import type { RefundRecord } from '../../domain/refund.ts';
import type { TransactionRecord, Transition } from '../../domain/transaction.ts';
import type { ConsoleReads, PaymentListItem, PaymentSearch } from '../ports/console.ts';
import type { AttentionStore, ProcessorAttemptStore, ProcessorNotificationStore } from '../ports/processor-store.ts';
import type { LedgerReads, OutboxReads, PaymentStore, RefundReads } from '../ports/store.ts';
import { merchantScopeOf, type LoginSubject } from './console-accounts.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PaymentStory = {
  transitions: Transition[];
  /** The payment's result notification, once it reached a final state. */
  event: OutboxEvent | undefined;
  attempts: DeliveryAttempt[];
  refunds: RefundRecord[];
  /** Each refund's notification, in the order of `refunds`. */
  refundEvents: Array<OutboxEvent | undefined>;
  /** The payment's ledger entry, then its refunds'. */
  entries: EntryWithPostings[];
  /**
   * Operators only (empty for a merchant): the processor side of the payment, which is the
   * gateway's business with its bank — the attempts made there, oldest first, the notifications
   * the processor sent about it, and its needs-attention items, open and resolved.
   */
  processorAttempts: ProcessorAttempt[];
  processorNotifications: ProcessorNotification[];
  attention: AttentionItem[];
};

export type ConsolePaymentReadsDeps = {
  reads: ConsoleReads;
  payments: Pick<PaymentStore, 'transitions'>;
  outbox: Pick<OutboxReads, 'findByTransaction' | 'findByRefund' | 'attempts'>;
  ledger: Pick<LedgerReads, 'findEntryByTransaction' | 'findEntryByIdempotencyKey'>;
  refunds: Pick<RefundReads, 'ofTransaction'>;
  processorAttempts: Pick<ProcessorAttemptStore, 'forTransaction'>;
  processorNotifications: Pick<ProcessorNotificationStore, 'forTransaction'>;
  attention: Pick<AttentionStore, 'forTransaction'>;
};

export class ConsolePaymentReads {
  readonly #deps: ConsolePaymentReadsDeps;
  constructor(deps: ConsolePaymentReadsDeps) {
    this.#deps = deps;
  }

  /** Newest first; a merchant's search is confined to its own payments whatever it names. */
  search(search: PaymentSearch, who: LoginSubject): Promise<PaymentListItem[]> {
    const scope = merchantScopeOf(who);
    return this.#deps.reads.search(scope === undefined ? search : { ...search, merchantId: scope });
  }

  /** The payment `who` may see, or NOT_FOUND (unknown, malformed id, or another merchant's). */
  async find(transactionId: string, who: LoginSubject): Promise<TransactionRecord> {
    const id = transactionId.toLowerCase();
    const found = UUID.test(id) ? await this.#deps.reads.find(id, merchantScopeOf(who)) : undefined;
    if (!found) throw new GatewayError('NOT_FOUND', 'No such payment.');
    return found;
  }

  async story(tx: TransactionRecord, who: LoginSubject): Promise<PaymentStory> {
    const { payments, outbox, ledger, refunds: refundReads } = this.#deps;
    const [transitions, event, entry, refunds, processor] = await Promise.all([
      payments.transitions(tx.id),
      outbox.findByTransaction(tx.id),
      ledger.findEntryByTransaction(tx.id),
      refundReads.ofTransaction(tx.id),
      this.#processorSide(tx, who),
    ]);
    const refundEvents = await Promise.all(refunds.map((r) => outbox.findByRefund(r.id)));
    // A refund's ledger entry is keyed by its refund id (app/refund-payment.ts), not the transaction.
    const refundEntries = await Promise.all(refunds.map((r) => ledger.findEntryByIdempotencyKey(`refund:${r.id}`)));
    const entries = [entry, ...refundEntries].filter((e): e is EntryWithPostings => e !== undefined);
    const attempts = event ? await outbox.attempts(event.id) : [];
    return { transitions, event, attempts, refunds, refundEvents, entries, ...processor };
  }

  async #processorSide(
    tx: TransactionRecord,
    who: LoginSubject,
  ): Promise<Pick<PaymentStory, 'processorAttempts' | 'processorNotifications' | 'attention'>> {
    if (merchantScopeOf(who) !== undefined) return { processorAttempts: [], processorNotifications: [], attention: [] };
    const [processorAttempts, processorNotifications, attention] = await Promise.all([
      this.#deps.processorAttempts.forTransaction(tx.id),
      this.#deps.processorNotifications.forTransaction(tx.id),
      this.#deps.attention.forTransaction(tx.id),
    ]);
    return { processorAttempts, processorNotifications, attention };
  }
}
