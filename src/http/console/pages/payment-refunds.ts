// The refunds section of a payment's page: its refunds, each with its notification (resendable),
// and for a SUCCESS payment with something left, the refund form (docs/console.md "Pages").
import type { OutboxEvent } from '../../../domain/outbox-event.ts';
import { randomToken } from '../../../domain/ids.ts';
import { currencyExponent, formatMinor } from '../../../domain/money.ts';
import type { RefundRecord } from '../../../domain/refund.ts';
import type { TransactionRecord } from '../../../domain/transaction.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { formatAmount } from '../../hosted-page/page-view.ts';
import { csrfField, formatTime } from '../page-shell.ts';
import type { ConsoleTexts } from '../texts.ts';

/** Amount as a plain decimal for a form field (exact, the currency's digits). */
function plainAmount(minor: bigint, currency: string): string {
  return formatMinor(minor, currencyExponent(currency));
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
        : html`<div class="scroll"><table><thead><tr><th class="key">${d.refundId}</th><th>${t.payments.created}</th><th class="num key">${t.payments.amount}</th><th class="num">${d.refundedTotal}</th><th>${d.reason}</th><th>${d.refundReference}</th><th class="key">${d.notification}</th></tr></thead><tbody>
          ${refunds.map((r, i) => {
            const e = events[i];
            return html`<tr><td class="mono">${r.id}</td><td>${formatTime(r.createdAt)}</td><td class="num">${formatAmount(r.amountMinor, r.currency)}</td><td class="num">${formatAmount(r.refundedAfterMinor, r.currency)}</td><td>${r.reason ?? ''}</td><td>${r.reference ?? ''}</td><td>${
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
            <div class="actions"><button type="submit">${d.refundSubmit}</button></div></form>`
        : null
    }
  </section>`;
}
