// The daily reconciliation (docs/connectors/kbank.md "Operations"): every QR paid at the processor
// on one Asia/Bangkok day, asked about again and compared three ways — what we recorded, what the
// processor answers now, and what the ledger holds for the payment. The processor's net for a
// payment is its paid amount, or zero once voided; the ledger's net is the payment's clearing
// debit less its refunds'. A difference is anything that does not line up; the operator reads
// the list (the CLI's `reconcile` exits 1 when it is not empty).
import { bangkokDayStart, DAY_IN_MS } from '../../domain/bangkok-time.ts';
import { formatMinor } from '../../domain/money.ts';
import type { ProcessorAttempt } from '../../domain/processor-attempt.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { AttentionStore, ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector, ProcessorPaymentStatus } from '../ports/processor.ts';
import type { LedgerReads, PaymentStore, RefundReads } from '../ports/store.ts';

export type ReconciliationDeps = {
  connector: ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'settledBetween'>;
  payments: Pick<PaymentStore, 'get'>;
  refunds: Pick<RefundReads, 'ofTransaction'>;
  ledger: Pick<LedgerReads, 'findEntryByTransaction' | 'findEntryByIdempotencyKey'>;
  attention: Pick<AttentionStore, 'forTransaction'>;
};

/** One payment of the day, as each side sees it; `differences` empty when they agree. */
export type ReconciledPayment = {
  transactionId: string;
  reference: string;
  currency: string;
  recordedState: string;
  processorState: string;
  /** What the payment is worth to the merchant now, per side (1/10,000 of the currency). */
  processorNetMinor: bigint;
  ledgerNetMinor: bigint;
  differences: string[];
};

export type DailyReconciliation = {
  day: string;
  from: number;
  to: number;
  payments: ReconciledPayment[];
  /** Net per currency, per side. */
  totals: Record<string, { processorMinor: bigint; ledgerMinor: bigint }>;
  differences: number;
};

export class DailyReconciler {
  readonly #deps: ReconciliationDeps;
  constructor(deps: ReconciliationDeps) {
    this.#deps = deps;
  }

  async run(day: string): Promise<DailyReconciliation> {
    const from = bangkokDayStart(day);
    if (from === undefined) throw new RangeError(`not a calendar day: ${day}`);
    const range = { from, to: from + DAY_IN_MS };
    const attempts = (await this.#deps.attempts.settledBetween(range.from, range.to)).filter((a) => a.kind === 'qr');
    const payments: ReconciledPayment[] = [];
    // One at a time: a reconciliation is not urgent, and the processor's rate limits are shared
    // with the live traffic.
    for (const attempt of attempts) payments.push(await this.#payment(attempt));
    const totals: DailyReconciliation['totals'] = {};
    for (const p of payments) {
      const t = (totals[p.currency] ??= { processorMinor: 0n, ledgerMinor: 0n });
      t.processorMinor += p.processorNetMinor;
      t.ledgerMinor += p.ledgerNetMinor;
    }
    const differences = payments.reduce((n, p) => n + p.differences.length, 0);
    return { day, ...range, payments, totals, differences };
  }

  async #payment(attempt: ProcessorAttempt): Promise<ReconciledPayment> {
    const payment = await this.#deps.payments.get(attempt.transactionId);
    const differences: string[] = [];
    const status = await this.#status(attempt, differences);
    const processorNet = status ? processorNetOf(status) : 0n;
    const ledgerNet = payment ? await this.#ledgerNet(payment) : 0n;
    if (!payment) differences.push('no payment with this id in the gateway');
    if (status) {
      if (status.state !== 'paid' && status.state !== 'voided')
        differences.push(`recorded ${attempt.state}, the processor now answers ${status.state}`);
      if (status.state === 'paid' && status.paidAmountMinor !== attempt.paidAmountMinor)
        differences.push(
          `recorded paid ${minor(attempt.paidAmountMinor)}, the processor answers ${minor(status.paidAmountMinor)}`,
        );
    }
    if (payment && status && processorNet !== ledgerNet) {
      differences.push(await this.#why(payment, attempt, processorNet, ledgerNet));
    }
    return {
      transactionId: attempt.transactionId,
      reference: attempt.reference,
      currency: payment?.currency ?? status?.currency ?? '?',
      recordedState: attempt.state,
      processorState: status?.state ?? 'unreachable',
      processorNetMinor: processorNet,
      ledgerNetMinor: ledgerNet,
      differences,
    };
  }

  async #status(attempt: ProcessorAttempt, differences: string[]): Promise<ProcessorPaymentStatus | undefined> {
    try {
      return await this.#deps.connector.queryPayment(attempt.reference, attempt.createdAt);
    } catch (error) {
      differences.push(`the processor could not be asked: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** The payment's clearing debit less its refunds' credits, as a positive figure. */
  async #ledgerNet(payment: TransactionRecord): Promise<bigint> {
    const entry = await this.#deps.ledger.findEntryByTransaction(payment.id);
    let net = 0n;
    for (const p of entry?.postings ?? []) if (p.kind === 'gateway_clearing') net -= p.amountMinor;
    for (const refund of await this.#deps.refunds.ofTransaction(payment.id)) {
      const refundEntry = await this.#deps.ledger.findEntryByIdempotencyKey(`refund:${refund.id}`);
      for (const p of refundEntry?.postings ?? []) if (p.kind === 'gateway_clearing') net -= p.amountMinor;
    }
    return net;
  }

  /** A sentence for a net that differs, naming the needs-attention item that covers it, if any. */
  async #why(payment: TransactionRecord, attempt: ProcessorAttempt, processor: bigint, ledger: bigint) {
    const items = await this.#deps.attention.forTransaction(payment.id);
    const item = items.find((i) => i.reference === attempt.reference) ?? items[0];
    const covered = item
      ? ` (needs-attention ${item.id}, ${item.resolvedAt === null ? 'open' : `resolved: ${item.resolution}`})`
      : '';
    const c = payment.currency;
    return (
      `the processor holds ${formatMinor(processor, 4)} ${c} for the merchant, the ledger ` +
      `${formatMinor(ledger, 4)} ${c}; payment ${payment.status}${covered}`
    );
  }
}

const minor = (m: bigint | null): string => (m === null ? 'nothing' : formatMinor(m, 4));

function processorNetOf(status: ProcessorPaymentStatus): bigint {
  return status.state === 'paid' ? (status.paidAmountMinor ?? 0n) : 0n;
}
