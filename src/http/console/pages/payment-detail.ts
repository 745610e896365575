// GET /console/payments/<transactionid>: one payment's whole story — summary, timeline,
// notification with every attempt, refunds with theirs, ledger postings, and for operators its
// needs-attention items and its life at the processor (payment-processor.ts) — with the forms of
// the actions on it (resend, refund, and in sandbox complete). The story is read by
// ConsolePaymentReads, which answers NOT_FOUND for another merchant's payment.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentStory } from '../../../app/console/payment-reads.ts';
import { SANDBOX_OUTCOMES } from '../../../domain/lifecycle.ts';
import type { DeliveryAttempt, OutboxEvent } from '../../../domain/outbox-event.ts';
import type { EntryWithPostings } from '../../../domain/ledger.ts';
import { isHeldForPayer, type TransactionRecord, type Transition } from '../../../domain/transaction.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { bankName, formatAmount, maskAccount } from '../../hosted-page/page-view.ts';
import { formToken, languageOf, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { csrfField, formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleLang, type ConsoleTexts } from '../texts.ts';
import { ledgerAmount } from './ledger-format.ts';
import { paymentStatePills, statePill } from './payment-list.ts';
import { attentionSection, processorSection } from './payment-processor.ts';
import { refundsSection, type TransferFormState } from './payment-refunds.ts';

type Query = Record<string, unknown>;
type Detail = ConsoleTexts['detail'];

export function registerPaymentDetailRoute(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get('/payments/:id', async (request: FastifyRequest<{ Params: { id: string }; Querystring: Query }>, reply) =>
    sendPaymentDetail(deps, request, reply, request.params.id),
  );
}

/**
 * The payment's page; with `transfer`, its bank-transfer form as posted and why it was refused,
 * answered with `status` (payment-actions.ts).
 */
export async function sendPaymentDetail(
  deps: ConsoleDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  transactionId: string,
  transfer?: TransferFormState,
  status = 200,
): Promise<FastifyReply> {
  const lang = languageOf(request, reply, deps);
  const t = CONSOLE_TEXTS[lang];
  const session = sessionOf(request);
  const tx = await deps.payments.find(transactionId, session.subject);
  const story = await deps.payments.story(tx, session.subject);
  const csrf = formToken(deps, request, reply, session);
  const page: DetailPage = {
    root: deps.root,
    t,
    lang,
    tx,
    story,
    csrf,
    operator: session.subject.role === 'operator',
    notice: doneNotice(t.detail, (request.query ?? {}) as Query),
    sandbox: deps.sandbox,
    transfer,
  };
  return sendPage(
    deps,
    request,
    reply,
    {
      lang,
      title: `${t.detail.heading} ${tx.trackid}`,
      body: detailBody(page),
      session,
      nav: 'payments',
      langHref: `${deps.root}/payments/${tx.id}`,
    },
    status,
  );
}

/** What an action's redirect (`?done=…`) says happened. */
function doneNotice(d: Detail, query: Query): string | undefined {
  const done = query.done;
  return done === 'resent' && typeof query.series === 'string' && /^\d{1,6}$/.test(query.series)
    ? d.resent(Number(query.series))
    : done === 'completed'
      ? d.completed_
      : typeof query.refund === 'string' && /^rfd_[A-Za-z0-9_-]{1,64}$/.test(query.refund)
        ? done === 'refunded'
          ? d.refundDone(query.refund)
          : done === 'recorded'
            ? d.transferDone(query.refund)
            : done === 'recorded-before'
              ? d.transferAgain(query.refund)
              : undefined
        : undefined;
}

type DetailPage = {
  root: string;
  t: ConsoleTexts;
  lang: ConsoleLang;
  tx: TransactionRecord;
  story: PaymentStory;
  /** The session's form token, for every form on the page. */
  csrf: string;
  operator: boolean;
  notice: string | undefined;
  sandbox: boolean;
  /** The bank-transfer form as posted when it was refused. */
  transfer: TransferFormState | undefined;
};

function detailBody(page: DetailPage): SafeHtml {
  const { root, t, tx, story, csrf } = page;
  const d = t.detail;
  const notice = page.notice;
  return html`<p><a href="${root}/payments">← ${d.back}</a></p>
      <h1>${d.heading} <span class="mono">${tx.trackid}</span> ${paymentStatePills(t, tx)}</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      ${summarySection(page)}${attentionSection(root, t, tx, story)}
      ${timelineSection(t, tx, story)}${processorSection(t, tx, story)}
      ${notificationSection(root, t, tx, story.event, story.attempts, csrf)}
      ${refundsSection(root, t, tx, story.refunds, story.refundEvents, csrf, page.operator ? 'gateway' : 'merchant', page.transfer)}
      ${ledgerSection(t, story.entries)}
      ${page.sandbox && tx.status === 'PROCESSING' ? sandboxSection(root, d, tx, csrf) : null}`;
}

const row = (label: string, value: SafeHtml | string | null) => html`<dt>${label}</dt><dd>${value ?? '—'}</dd>`;

function summarySection({ t, lang, tx, operator }: DetailPage): SafeHtml {
  const d = t.detail;
  return html`<section class="card"><h2>${d.summary}</h2><dl class="kv">
        ${row(t.payments.transactionid, html`<span class="mono">${tx.id}</span>`)}
        ${operator ? row(t.payments.merchant, html`<span class="mono">${tx.merchantId}</span>`) : null}
        ${row(t.payments.amount, formatAmount(tx.amountMinor, tx.currency))}
        ${row(t.payments.state, paymentStatePills(t, tx))}
        ${tx.errorCodeTag ? row(d.reason, `${tx.errorCodeTag} — ${tx.errorText ?? ''}`) : null}
        ${row(t.payments.created, formatTime(tx.createdAt))}
        ${row(d.expires, formatTime(tx.expiresAt))}
        ${row(d.completed, formatTime(tx.completedAt))}
        ${row(t.payments.email, tx.billEmail)}
        ${row(d.customerIp, tx.billCustomerIp)}
        ${row(d.payerBank, bankName(tx.payerBankCode, lang))}
        ${row(d.payerAccount, maskAccount(tx.payerAccountNo))}
        ${row(d.payerName, tx.payerAccountName)}
        ${tx.payerCheck === null ? null : row(d.payerCheck, payerCheckPill(d, tx))}
        ${row(d.description, tx.productdesc)}
        ${row(d.serverUrl, html`<span class="mono">${tx.serverUrl}</span>`)}
        ${row(d.returnUrl, html`<span class="mono">${tx.returnUrl}</span>`)}
      </dl></section>`;
}

/** The payer check's verdict (docs/console.md "Payer check"), and while it holds the payment, why. */
function payerCheckPill(d: Detail, tx: TransactionRecord): SafeHtml {
  const verdict = tx.payerCheck!;
  const tone = verdict === 'matched' ? 'SUCCESS' : verdict === 'mismatched' ? 'FAILED' : 'PROCESSING';
  return html`<span class="pill s-${tone}" id="payer-check">${d.payerChecks[verdict]}</span>${isHeldForPayer(tx) ? html`<br><span class="muted">${d.payerHeld}</span>` : null}`;
}

/**
 * The payment's life in time order: initiated, each transition, then each refund with its amount
 * (refunds made in the same millisecond in the order of their running total).
 */
function timelineSection(t: ConsoleTexts, tx: TransactionRecord, story: PaymentStory): SafeHtml {
  const d = t.detail;
  const refunds = [...story.refunds].sort(
    (a, b) => a.createdAt - b.createdAt || Number(a.refundedAfterMinor - b.refundedAfterMinor),
  );
  const rows: Array<{ at: number; row: SafeHtml }> = [
    ...story.transitions.map((tr: Transition) => ({
      at: tr.at,
      row: html`<tr><td>${formatTime(tr.at)}</td><td>${d.cause[tr.cause] ?? tr.cause}${tr.errorCodeTag ? ` (${tr.errorCodeTag})` : ''}</td><td>${statePill(t, tr.toStatus)}</td></tr>`,
    })),
    ...refunds.map((r) => {
      const full = r.refundedAfterMinor >= tx.amountMinor;
      return {
        at: r.createdAt,
        row: html`<tr><td>${formatTime(r.createdAt)}</td><td><a href="#refunds">${d.refundedEvent(r.id)}</a> · ${formatAmount(r.amountMinor, r.currency)}${r.reason ? ` · ${r.reason}` : ''}</td><td><span class="pill s-${full ? 'refunded' : 'partially-refunded'}">${full ? t.refundStates.full : t.refundStates.partial}</span></td></tr>`,
      };
    }),
  ].sort((a, b) => a.at - b.at);
  return html`<section class="card"><h2>${d.timeline}</h2><div class="scroll"><table>
        <thead><tr><th>${t.audit.at}</th><th>${d.whatHappened}</th><th>${t.payments.state}</th></tr></thead><tbody>
        <tr><td>${formatTime(tx.createdAt)}</td><td>${d.initiated}</td><td>${statePill(t, 'PROCESSING')}</td></tr>
        ${rows.map((r) => r.row)}
      </tbody></table></div></section>`;
}

function notificationSection(
  root: string,
  t: ConsoleTexts,
  tx: TransactionRecord,
  event: OutboxEvent | undefined,
  attempts: DeliveryAttempt[],
  csrf: string,
): SafeHtml {
  const d = t.detail;
  return html`<section class="card" id="notification"><h2>${d.notification}</h2>${
    !event
      ? html`<p class="muted">${d.noNotification}</p>`
      : html`<dl class="kv">
              ${row(d.event, html`<span class="mono">${event.id}</span>`)}
              ${row(d.deliveryStatus, html`<span class="pill s-${event.status}">${t.delivery[event.status]}</span>`)}
              ${row(d.series, String(event.series))}
              ${row(d.attempts, attemptCount(d, event, attempts))}
              ${event.status === 'pending' ? row(d.nextAttempt, formatTime(event.nextAttemptAt)) : null}
              ${event.lastError ? row(d.lastError, event.lastError) : null}
            </dl>
            <div class="scroll"><table><thead><tr><th class="num">${d.attemptNo}</th><th>${d.series}</th><th>${d.started}</th><th class="key">${d.result}</th><th class="num">${d.latency}</th><th>${d.response}</th></tr></thead><tbody>
              ${attempts.length === 0 ? html`<tr><td colspan="6" class="muted">${d.noAttempts}</td></tr>` : null}
              ${attempts.map(
                (a) =>
                  html`<tr><td class="num">${String(a.attemptNo)}</td><td>${String(a.series)}</td><td>${formatTime(a.startedAt)}</td><td>${a.httpStatus !== null ? `HTTP ${a.httpStatus}` : ''}${a.error ? ` ${a.error}` : ''}</td><td class="num">${String(a.latencyMs)}</td><td class="mono">${(a.responseExcerpt ?? '').slice(0, 200)}</td></tr>`,
              )}
            </tbody></table></div>
            <form method="post" action="${root}/payments/${tx.id}/resend">${csrfField(csrf)}<button type="submit">${d.resend}</button></form>`
  }</section>`;
}

/** Every attempt the table lists; a resend's new series restarts the event's own counter. */
function attemptCount(d: Detail, event: OutboxEvent, attempts: DeliveryAttempt[]): string {
  const total = String(attempts.length);
  return attempts.length === event.attempts ? total : `${total} ${d.inThisSeries(event.attempts)}`;
}

function ledgerSection(t: ConsoleTexts, entries: EntryWithPostings[]): SafeHtml {
  const d = t.detail;
  return html`<section class="card"><h2>${d.ledger}</h2>${
    entries.length === 0
      ? html`<p class="muted">${d.noLedger}</p>`
      : entries.map(
          (
            e,
          ) => html`<p class="mono">${e.id} · ${e.kind} · ${formatTime(e.createdAt)}</p><div class="scroll"><table><thead><tr><th class="key">${d.account}</th><th class="num key">${t.payments.amount}</th><th class="num">${d.balanceAfter}</th></tr></thead><tbody>
              ${e.postings.map((p) => html`<tr><td class="mono">${p.accountId}</td><td class="num">${ledgerAmount(p.amountMinor, p.currency)}</td><td class="num">${p.balanceAfterMinor === null ? '—' : ledgerAmount(p.balanceAfterMinor, p.currency)}</td></tr>`)}
            </tbody></table></div>`,
        )
  }</section>`;
}

/** Sandbox only, while the payment is PROCESSING: complete it with a chosen outcome. */
function sandboxSection(root: string, d: Detail, tx: TransactionRecord, csrf: string): SafeHtml {
  return html`<section class="card"><h2>${d.sandbox}</h2><p class="muted">${d.sandboxHint}</p>
              <form method="post" action="${root}/payments/${tx.id}/complete" class="actions">${csrfField(csrf)}
                <div><label for="outcome">${d.outcome}</label><select id="outcome" name="outcome">${SANDBOX_OUTCOMES.map((o) => html`<option value="${o}">${d.outcomes[o]}</option>`)}</select></div>
                <button type="submit">${d.complete}</button></form></section>`;
}
