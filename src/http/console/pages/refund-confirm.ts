// The refund's confirmation step (docs/console.md "Pages"): the refund form's first post shows
// this page — the payment, the amount to refund and what is left after it — and only its own
// form, posted again with the confirmation token, refunds. The token binds the session to exactly
// what is shown (payment, amount, reason, the form's idempotency key).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefundPreview } from '../../../app/console/payment-actions.ts';
import { html } from '../../hosted-page/html.ts';
import { formatAmount } from '../../hosted-page/page-view.ts';
import { confirmToken, confirmTokenValid, formToken, languageOf, sessionOf } from '../console-kit.ts';
import type { ConsoleSite } from '../console-deps.ts';
import { csrfField, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS } from '../texts.ts';
import { paymentStatePills } from './payment-list.ts';

/** What the confirmation token is bound to besides the session. */
function subjectOf(preview: RefundPreview, key: string): string {
  return JSON.stringify(['refund', preview.payment.id, preview.amount, preview.reason ?? '', key]);
}

export function refundConfirmed(
  site: ConsoleSite,
  request: FastifyRequest,
  preview: RefundPreview,
  key: string,
  token: unknown,
): boolean {
  return confirmTokenValid(site, request, sessionOf(request), subjectOf(preview, key), token);
}

export function sendRefundConfirmation(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  preview: RefundPreview,
  key: string,
): FastifyReply {
  const lang = languageOf(request, reply, site);
  const t = CONSOLE_TEXTS[lang];
  const d = t.detail;
  const session = sessionOf(request);
  const tx = preview.payment;
  const back = `${site.root}/payments/${tx.id}`;
  const amount = formatAmount(preview.amountMinor, tx.currency);
  const body = html`<p><a href="${back}#refunds">← ${d.heading} ${tx.trackid}</a></p>
      <h1>${d.confirmTitle}</h1>
      <section class="card" id="confirm-refund"><p>${d.confirmLead}</p><dl class="kv">
        <dt>${d.heading}</dt><dd><a class="mono" href="${back}">${tx.trackid}</a> ${paymentStatePills(t, tx)}</dd>
        <dt>${t.payments.transactionid}</dt><dd class="mono">${tx.id}</dd>
        <dt>${t.payments.amount}</dt><dd>${formatAmount(tx.amountMinor, tx.currency)}</dd>
        <dt>${d.refundedTotal}</dt><dd>${formatAmount(tx.refundedMinor, tx.currency)}</dd>
        <dt>${d.confirmAmount}</dt><dd><strong class="amount">${amount}</strong></dd>
        <dt>${d.refundableAfter}</dt><dd>${formatAmount(preview.refundableAfterMinor, tx.currency)}</dd>
        <dt>${d.reason}</dt><dd>${preview.reason ?? '—'}</dd>
      </dl>
      <form method="post" action="${back}/refund" class="actions">${csrfField(formToken(site, request, reply, session))}
        <input type="hidden" name="refund_key" value="${key}"><input type="hidden" name="amount" value="${preview.amount}">
        <input type="hidden" name="reason" value="${preview.reason ?? ''}">
        <input type="hidden" name="confirm" value="${confirmToken(site, request, reply, session, subjectOf(preview, key))}">
        <button type="submit">${d.confirmSubmit(amount)}</button><a class="button secondary" href="${back}#refunds">${d.confirmCancel}</a>
      </form></section>`;
  return sendPage(site, request, reply, {
    lang,
    title: d.confirmTitle,
    body,
    session,
    nav: 'payments',
    langHref: back,
  });
}
