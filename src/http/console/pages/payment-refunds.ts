// The refunds section of a payment's page: its refunds, each with how it was paid and its
// notification (resendable), and for a SUCCESS payment with something left, the refund form and
// the form that records a refund already paid by bank transfer (docs/console.md "Pages").
import type { OutboxEvent } from '../../../domain/outbox-event.ts';
import { randomToken } from '../../../domain/ids.ts';
import { currencyExponent, formatMinor } from '../../../domain/money.ts';
import { paidByTransfer, TRANSFER_PAYERS, type RefundRecord, type TransferPaidBy } from '../../../domain/refund.ts';
import { MAX_TRANSFER_REFERENCE, PAID_BY_FIELD } from '../../../domain/transfer-refund.ts';
import type { TransactionRecord } from '../../../domain/transaction.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { formatAmount } from '../../hosted-page/page-view.ts';
import { csrfField, formatTime } from '../page-shell.ts';
import type { ConsoleTexts } from '../texts.ts';

/** Amount as a plain decimal for a form field (exact, the currency's digits). */
function plainAmount(minor: bigint, currency: string): string {
  return formatMinor(minor, currencyExponent(currency));
}

/** The record form as posted, and what was wrong with it, shown in the form (400/409 answers). */
export type TransferFormState = {
  amount: string;
  transferReference: string;
  reason: string;
  /** The radio as posted ('' when none was chosen). */
  paidBy: string;
  error: string;
  /** The form field the error names, marked invalid. */
  field: string | undefined;
};

/** How a refund reached the payer: the bank transfer and its reference, or the connector (and its id for it). */
function paidBy(d: ConsoleTexts['detail'], r: RefundRecord): string {
  if (paidByTransfer(r)) return d.paidByTransfer(r.transferPaidBy ?? 'gateway', r.processorReference ?? '');
  return r.processorReference ? `${r.processor}, ${r.processorReference}` : r.processor;
}

/**
 * The payment's refunds, each with its notification, and for a SUCCESS payment with
 * something left to refund, a refund form. The form carries a fresh idempotency key per page
 * view: a double submit refunds once, a second refund needs the page again.
 */
export function refundsSection(
  root: string,
  t: ConsoleTexts,
  tx: TransactionRecord,
  refunds: RefundRecord[],
  events: Array<OutboxEvent | undefined>,
  csrf: string,
  viewer: TransferPaidBy,
  transfer?: TransferFormState,
): SafeHtml {
  const d = t.detail;
  const refundable = tx.amountMinor - tx.refundedMinor;
  return html`<section class="card" id="refunds"><h2>${d.refunds}</h2>
    <dl class="kv">
      <dt>${d.refundedTotal}</dt><dd>${formatAmount(tx.refundedMinor, tx.currency)}</dd>
      ${tx.status === 'SUCCESS' ? html`<dt>${d.refundable}</dt><dd>${formatAmount(refundable, tx.currency)}</dd>` : null}
    </dl>
    ${
      refunds.length === 0
        ? html`<p class="muted">${d.noRefunds}</p>`
        : html`<div class="scroll"><table><thead><tr><th class="key">${d.refundId}</th><th>${t.payments.created}</th><th class="num key">${t.payments.amount}</th><th class="num">${d.refundedTotal}</th><th>${d.reason}</th><th>${d.refundReference}</th><th>${d.paidBy}</th><th class="key">${d.notification}</th></tr></thead><tbody>
          ${refunds.map((r, i) => {
            const e = events[i];
            return html`<tr><td class="mono">${r.id}</td><td>${formatTime(r.createdAt)}</td><td class="num">${formatAmount(r.amountMinor, r.currency)}</td><td class="num">${formatAmount(r.refundedAfterMinor, r.currency)}</td><td>${r.reason ?? ''}</td><td>${r.reference ?? ''}</td><td>${paidBy(d, r)}</td><td>${
              e
                ? html`<span class="pill s-${e.status}">${t.delivery[e.status]}</span> <span class="muted">(${d.attempts}: ${String(e.attempts)})</span>
                    <form class="inline" method="post" action="${root}/payments/${tx.id}/resend">${csrfField(csrf)}<input type="hidden" name="event" value="${e.id}"><button type="submit" class="secondary">${d.resend}</button></form>`
                : ''
            }</td></tr>`;
          })}
        </tbody></table></div>`
    }
    ${
      tx.status === 'SUCCESS' && refundable > 0n
        ? html`<p class="muted">${d.refundHint}</p><form method="post" action="${root}/payments/${tx.id}/refund" class="filters">${csrfField(csrf)}<input type="hidden" name="refund_key" value="${`console-${randomToken(16)}`}">
            <div><label for="refund_amount">${t.payments.amount} (${tx.currency})</label><input id="refund_amount" name="amount" inputmode="decimal" required maxlength="32" value="${plainAmount(refundable, tx.currency)}"></div>
            <div><label for="refund_reason">${d.refundReason}</label><input id="refund_reason" name="reason" maxlength="255"></div>
            <div class="actions"><button type="submit">${d.refundSubmit}</button></div></form>
            ${transferForm(root, t, tx, csrf, refundable, viewer, transfer)}`
        : null
    }
  </section>`;
}

/**
 * Records a refund ALREADY paid by bank transfer: the wording and a required box say that it moves
 * no money (the post is refused without the box). A required radio says who sent the transfer,
 * which decides the merchant's balance (docs/ledger.md); it starts at what the viewer is (an
 * operator: the gateway; a merchant: the merchant), and either may be chosen. Refused posts come
 * back here, with what was typed and the reason, the named field marked.
 */
function transferForm(
  root: string,
  t: ConsoleTexts,
  tx: TransactionRecord,
  csrf: string,
  refundable: bigint,
  viewer: TransferPaidBy,
  state: TransferFormState | undefined,
): SafeHtml {
  const d = t.detail;
  const invalid = (field: string) => (state?.field === field ? html` aria-invalid="true"` : null);
  const chosen = state ? state.paidBy : viewer;
  const payer = (p: TransferPaidBy) =>
    html`<label><input type="radio" name="${PAID_BY_FIELD}" value="${p}" required${chosen === p ? html` checked` : null}${invalid(PAID_BY_FIELD)}> ${d.transferPayer[p]}</label>`;
  return html`<h3 id="record-transfer">${d.transferTitle}</h3><p class="muted">${d.transferHint}</p>
            ${state ? html`<p class="notice error" role="alert">${state.error}</p>` : null}
            <form method="post" action="${root}/payments/${tx.id}/record-refund" class="filters">${csrfField(csrf)}
            <div><label for="transfer_amount">${t.payments.amount} (${tx.currency})</label><input id="transfer_amount" name="amount" inputmode="decimal" required maxlength="32" value="${state?.amount ?? plainAmount(refundable, tx.currency)}"${invalid('amount')}></div>
            <div><label for="transfer_reference">${d.transferReference}</label><input id="transfer_reference" name="transfer_reference" required maxlength="${String(MAX_TRANSFER_REFERENCE)}" autocomplete="off" value="${state?.transferReference ?? ''}"${invalid('transfer_reference')}></div>
            <fieldset><legend>${d.transferPaidBy}</legend>${TRANSFER_PAYERS.map(payer)}</fieldset>
            <div><label for="transfer_reason">${d.refundReason}</label><input id="transfer_reason" name="reason" maxlength="255" value="${state?.reason ?? ''}"${invalid('reason')}></div>
            <div><label><input type="checkbox" name="already_sent" value="yes" required${invalid('already_sent')}> ${d.transferSent}</label></div>
            <div class="actions"><button type="submit">${d.transferSubmit}</button></div></form>`;
}
