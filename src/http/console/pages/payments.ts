// Payments: search with keyset pages, one payment's whole story (timeline, notification
// attempts, ledger postings), resend its notification, and in sandbox complete it. A merchant's
// queries carry its merchantid (scopeOf), so another merchant's payment is a 404 like an
// unknown one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../../../domain/errors.ts';
import { isSandboxOutcome, SANDBOX_OUTCOMES, type TransactionStatus } from '../../../domain/lifecycle.ts';
import { currencyExponent, formatMinor, parseDecimal } from '../../../domain/money.ts';
import { randomToken } from '../../../domain/ids.ts';
import { validateRefund } from '../../../domain/refund-request.ts';
import { resendNotification } from '../../../app/resend-notification.ts';
import { type PaymentSearch } from '../../../app/ports/console.ts';
import { type OutboxEvent } from '../../../domain/outbox-event.ts';
import type { RefundRecord } from '../../../domain/refund.ts';
import type { TransactionRecord } from '../../../domain/transaction.ts';
import { html, raw, type SafeHtml } from '../../hosted-page/html.ts';
import { bankName, formatAmount, maskAccount } from '../../hosted-page/page-view.ts';
import {
  BANGKOK_OFFSET_MS,
  csrfField,
  formBody,
  formatTime,
  formToken,
  formTokenValid,
  languageOf,
  remoteOrigin,
  scopeOf,
  sendPage,
  sessionOf,
  type ConsoleKit,
} from '../console-kit.ts';
import { CONSOLE_TEXTS, type ConsoleTexts } from '../texts.ts';
import { ledgerAmount } from './ledger-format.ts';

export const PAGE_SIZE = 50;
const STATES: readonly TransactionStatus[] = ['PROCESSING', 'SUCCESS', 'FAILED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CURSOR = /^(\d{1,16})\.([0-9a-f-]{36})$/i;

type Query = Record<string, unknown>;

export const statePill = (t: ConsoleTexts, status: TransactionStatus): SafeHtml =>
  html`<span class="pill s-${status}">${t.states[status]}</span>`;

/** Start of a calendar day in Thailand, in Unix ms; undefined when not a real date. */
function bangkokDay(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return utc - BANGKOK_OFFSET_MS;
}

export type ParsedSearch = { search: PaymentSearch; form: Record<string, string>; problems: string[] };

/**
 * The search form's fields → a query. One free-text box: a UUID is a transactionid, text with
 * an @ an e-mail, anything else a trackid (each exact, each index-backed).
 */
export function parseSearch(query: Query, merchantScope: string | undefined): ParsedSearch {
  const field = (name: string, max: number) =>
    typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, max) : '';
  const form = {
    q: field('q', 254),
    amount: field('amount', 32),
    state: field('state', 16),
    from: field('from', 10),
    to: field('to', 10),
    merchant: field('merchant', 64),
  };
  const problems: string[] = [];
  const search: PaymentSearch = { limit: PAGE_SIZE + 1 };
  if (merchantScope !== undefined) search.merchantId = merchantScope;
  else if (form.merchant !== '') search.merchantId = form.merchant;
  if (form.q !== '') {
    if (UUID.test(form.q)) search.transactionId = form.q.toLowerCase();
    else if (form.q.includes('@')) search.email = form.q;
    else search.trackid = form.q;
  }
  if (form.amount !== '') {
    const parsed = parseDecimal(form.amount.replace(/,/g, ''));
    if (!parsed || parsed.minor <= 0n || parsed.significantFractionDigits > 2) problems.push('amount');
    else search.amountMinor = parsed.minor;
  }
  if (form.state !== '') {
    if (STATES.includes(form.state as TransactionStatus)) search.status = form.state as TransactionStatus;
    else problems.push('state');
  }
  if (form.from !== '') {
    const from = bangkokDay(form.from);
    if (from === undefined) problems.push('from');
    else search.from = from;
  }
  if (form.to !== '') {
    const to = bangkokDay(form.to);
    if (to === undefined) problems.push('to');
    else search.to = to + 86_400_000;
  }
  const cursor = typeof query.before === 'string' ? CURSOR.exec(query.before) : null;
  if (cursor) search.before = { createdAt: Number(cursor[1]), id: cursor[2]!.toLowerCase() };
  return { search, form, problems };
}

function listUrl(kit: ConsoleKit, form: Record<string, string>, before?: string): string {
  const params = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
  if (before) params.set('before', before);
  const qs = params.toString();
  return `${kit.root}/payments${qs ? `?${qs}` : ''}`;
}

export function registerPaymentRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { services, console: c } = kit;
  const repo = services.store.consoleReads;
  const outbox = services.store.outbox;
  const sandbox = services.config.mode === 'sandbox';

  scope.get('/payments', async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
    const lang = languageOf(request, reply, kit);
    const t = CONSOLE_TEXTS[lang];
    const session = sessionOf(request);
    const operator = session.subject.role === 'operator';
    const { search, form, problems } = parseSearch(request.query, scopeOf(session));
    const rows = problems.length > 0 ? [] : await repo.search(search);
    const page = rows.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    const nextCursor = rows.length > PAGE_SIZE && last ? `${last.createdAt}.${last.id}` : undefined;
    const p = t.payments;
    const option = (value: string, label: string) =>
      html`<option value="${value}"${raw(form.state === value ? ' selected' : '')}>${label}</option>`;
    const body = html`<h1>${p.heading}</h1>
      <div class="card"><form class="filters" method="get" action="${kit.root}/payments" role="search">
        <div class="wide"><label for="q">${p.search} <span class="muted">(${p.searchHint})</span></label><input id="q" name="q" value="${form.q}" maxlength="254"></div>
        <div><label for="amount">${p.amount}</label><input id="amount" name="amount" value="${form.amount}" inputmode="decimal" maxlength="32"${raw(problems.includes('amount') ? ' aria-invalid="true"' : '')}></div>
        <div><label for="state">${p.state}</label><select id="state" name="state">${option('', p.anyState)}${STATES.map((s) => option(s, t.states[s]))}</select></div>
        ${operator ? html`<div><label for="merchant">${p.merchant}</label><input id="merchant" name="merchant" value="${form.merchant}" maxlength="64"></div>` : null}
        <div><label for="from">${p.from}</label><input id="from" name="from" type="date" value="${form.from}"${raw(problems.includes('from') ? ' aria-invalid="true"' : '')}></div>
        <div><label for="to">${p.to}</label><input id="to" name="to" type="date" value="${form.to}"${raw(problems.includes('to') ? ' aria-invalid="true"' : '')}></div>
        <div class="actions"><button type="submit">${p.submit}</button><a class="button secondary" href="${kit.root}/payments">${p.clear}</a></div>
      </form></div>
      ${problems.length > 0 ? html`<p class="notice error" role="alert">${t.errors.badRequestTitle}: ${problems.map((f) => ({ amount: p.amount, state: p.state, from: p.from, to: p.to })[f] ?? f).join(', ')}</p>` : null}
      <div class="card scroll">${
        page.length === 0
          ? html`<p>${p.none}</p>`
          : html`<table><thead><tr><th>${p.created}</th><th>${p.trackid}</th>${operator ? html`<th>${p.merchant}</th>` : null}<th class="num">${p.amount}</th><th>${p.state}</th><th>${p.email}</th><th>${p.transactionid}</th></tr></thead><tbody>
            ${page.map(
              (tx) =>
                html`<tr><td>${formatTime(tx.createdAt)}</td><td class="mono"><a href="${kit.root}/payments/${tx.id}">${tx.trackid}</a></td>${operator ? html`<td class="mono">${tx.merchantId}</td>` : null}<td class="num">${formatAmount(tx.amountMinor, tx.currency)}</td><td>${statePill(t, tx.status)}</td><td>${tx.billEmail}</td><td class="mono"><a href="${kit.root}/payments/${tx.id}">${tx.id}</a></td></tr>`,
            )}</tbody></table>`
      }</div>
      <nav class="pager">${search.before ? html`<a href="${listUrl(kit, form)}">${p.first}</a>` : null}${nextCursor ? html`<a rel="next" href="${listUrl(kit, form, nextCursor)}">${p.next}</a>` : null}</nav>`;
    return sendPage(
      kit,
      request,
      reply,
      { lang, title: p.heading, body, session, nav: 'payments' },
      problems.length > 0 ? 400 : 200,
    );
  });

  async function paymentFor(request: FastifyRequest<{ Params: { id: string } }>): Promise<TransactionRecord> {
    const id = request.params.id.toLowerCase();
    const found = UUID.test(id) ? await repo.find(id, scopeOf(sessionOf(request))) : undefined;
    if (!found) throw new GatewayError('NOT_FOUND', 'No such payment.');
    return found;
  }

  scope.get('/payments/:id', async (request: FastifyRequest<{ Params: { id: string }; Querystring: Query }>, reply) => {
    const lang = languageOf(request, reply, kit);
    const t = CONSOLE_TEXTS[lang];
    const d = t.detail;
    const session = sessionOf(request);
    const tx = await paymentFor(request);
    const [transitions, event, entry, refunds] = await Promise.all([
      services.transactions.transitions(tx.id),
      outbox.findByTransaction(tx.id),
      services.ledger.findEntryByTransaction(tx.id),
      services.refunds.ofTransaction(tx.id),
    ]);
    const refundEvents = await Promise.all(refunds.map((r) => outbox.findByRefund(r.id)));
    // A refund's ledger entry is keyed by its refund id (app/refund-payment.ts), not the transaction.
    const refundEntries = await Promise.all(
      refunds.map((r) => services.ledger.findEntryByIdempotencyKey(`refund:${r.id}`)),
    );
    const entries = [entry, ...refundEntries].filter((e): e is NonNullable<typeof e> => e !== undefined);
    const attempts = event ? await outbox.attempts(event.id) : [];
    const csrf = formToken(kit, request, reply, session);
    const done = request.query.done;
    const notice =
      done === 'resent' && typeof request.query.series === 'string' && /^\d{1,6}$/.test(request.query.series)
        ? d.resent(Number(request.query.series))
        : done === 'completed'
          ? d.completed_
          : done === 'refunded' &&
              typeof request.query.refund === 'string' &&
              /^rfd_[A-Za-z0-9_-]{1,64}$/.test(request.query.refund)
            ? d.refundDone(request.query.refund)
            : undefined;
    const row = (label: string, value: SafeHtml | string | null) => html`<dt>${label}</dt><dd>${value ?? '—'}</dd>`;
    const body = html`<p><a href="${kit.root}/payments">← ${d.back}</a></p>
      <h1>${d.heading} <span class="mono">${tx.trackid}</span> ${statePill(t, tx.status)}</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      <section class="card"><h2>${d.summary}</h2><dl class="kv">
        ${row(t.payments.transactionid, html`<span class="mono">${tx.id}</span>`)}
        ${session.subject.role === 'operator' ? row(t.payments.merchant, html`<span class="mono">${tx.merchantId}</span>`) : null}
        ${row(t.payments.amount, formatAmount(tx.amountMinor, tx.currency))}
        ${row(t.payments.state, statePill(t, tx.status))}
        ${tx.errorCodeTag ? row(d.reason, `${tx.errorCodeTag} — ${tx.errorText ?? ''}`) : null}
        ${row(t.payments.created, formatTime(tx.createdAt))}
        ${row(d.expires, formatTime(tx.expiresAt))}
        ${row(d.completed, formatTime(tx.completedAt))}
        ${row(t.payments.email, tx.billEmail)}
        ${row(d.customerIp, tx.billCustomerIp)}
        ${row(d.payerBank, bankName(tx.payerBankCode, lang))}
        ${row(d.payerAccount, maskAccount(tx.payerAccountNo))}
        ${row(d.payerName, tx.payerAccountName)}
        ${row(d.description, tx.productdesc)}
        ${row(d.serverUrl, html`<span class="mono">${tx.serverUrl}</span>`)}
        ${row(d.returnUrl, html`<span class="mono">${tx.returnUrl}</span>`)}
      </dl></section>
      <section class="card"><h2>${d.timeline}</h2><div class="scroll"><table><tbody>
        <tr><td>${formatTime(tx.createdAt)}</td><td>${d.initiated}</td><td>${statePill(t, 'PROCESSING')}</td></tr>
        ${transitions.map((tr) => html`<tr><td>${formatTime(tr.at)}</td><td>${d.cause[tr.cause] ?? tr.cause}${tr.errorCodeTag ? ` (${tr.errorCodeTag})` : ''}</td><td>${statePill(t, tr.toStatus)}</td></tr>`)}
      </tbody></table></div></section>
      <section class="card" id="notification"><h2>${d.notification}</h2>${
        !event
          ? html`<p class="muted">${d.noNotification}</p>`
          : html`<dl class="kv">
              ${row(d.event, html`<span class="mono">${event.id}</span>`)}
              ${row(d.deliveryStatus, html`<span class="pill s-${event.status}">${t.delivery[event.status]}</span>`)}
              ${row(d.series, String(event.series))}
              ${row(d.attempts, String(event.attempts))}
              ${event.status === 'pending' ? row(d.nextAttempt, formatTime(event.nextAttemptAt)) : null}
              ${event.lastError ? row(d.lastError, event.lastError) : null}
            </dl>
            <div class="scroll"><table><thead><tr><th class="num">${d.attemptNo}</th><th>${d.series}</th><th>${d.started}</th><th>${d.result}</th><th class="num">${d.latency}</th><th>${d.response}</th></tr></thead><tbody>
              ${attempts.length === 0 ? html`<tr><td colspan="6" class="muted">${d.noAttempts}</td></tr>` : null}
              ${attempts.map(
                (a) =>
                  html`<tr><td class="num">${String(a.attemptNo)}</td><td>${String(a.series)}</td><td>${formatTime(a.startedAt)}</td><td>${a.httpStatus !== null ? `HTTP ${a.httpStatus}` : ''}${a.error ? ` ${a.error}` : ''}</td><td class="num">${String(a.latencyMs)}</td><td class="mono">${(a.responseExcerpt ?? '').slice(0, 200)}</td></tr>`,
              )}
            </tbody></table></div>
            <form method="post" action="${kit.root}/payments/${tx.id}/resend">${csrfField(csrf)}<button type="submit">${d.resend}</button></form>`
      }</section>
      ${refundsSection(kit, t, tx, refunds, refundEvents, csrf)}
      <section class="card"><h2>${d.ledger}</h2>${
        entries.length === 0
          ? html`<p class="muted">${d.noLedger}</p>`
          : entries.map(
              (
                e,
              ) => html`<p class="mono">${e.id} · ${e.kind} · ${formatTime(e.createdAt)}</p><div class="scroll"><table><thead><tr><th>${d.account}</th><th class="num">${t.payments.amount}</th><th class="num">${d.balanceAfter}</th></tr></thead><tbody>
              ${e.postings.map((p) => html`<tr><td class="mono">${p.accountId}</td><td class="num">${ledgerAmount(p.amountMinor, p.currency)}</td><td class="num">${p.balanceAfterMinor === null ? '—' : ledgerAmount(p.balanceAfterMinor, p.currency)}</td></tr>`)}
            </tbody></table></div>`,
            )
      }</section>
      ${
        sandbox && tx.status === 'PROCESSING'
          ? html`<section class="card"><h2>${d.sandbox}</h2><p class="muted">${d.sandboxHint}</p>
              <form method="post" action="${kit.root}/payments/${tx.id}/complete" class="actions">${csrfField(csrf)}
                <div><label for="outcome">${d.outcome}</label><select id="outcome" name="outcome">${SANDBOX_OUTCOMES.map((o) => html`<option value="${o}">${d.outcomes[o]}</option>`)}</select></div>
                <button type="submit">${d.complete}</button></form></section>`
          : null
      }`;
    return sendPage(kit, request, reply, {
      lang,
      title: `${d.heading} ${tx.trackid}`,
      body,
      session,
      nav: 'payments',
      langHref: `${kit.root}/payments/${tx.id}`,
    });
  });

  /** A form post's CSRF check; a failure is a 403 page and changes nothing. */
  function checkForm(request: FastifyRequest, reply: FastifyReply): boolean {
    if (formTokenValid(kit, request, sessionOf(request), formBody(request).csrf)) return true;
    const lang = languageOf(request, reply, kit);
    const t = CONSOLE_TEXTS[lang];
    void sendPage(
      kit,
      request,
      reply,
      {
        lang,
        title: t.errors.forbiddenTitle,
        body: html`<h1>${t.errors.forbiddenTitle}</h1><div class="card"><p>${t.errors.forbiddenBody}</p></div>`,
        session: sessionOf(request),
        langHref: `${kit.root}/payments`,
      },
      403,
    );
    return false;
  }

  // Resend through the same use case as `delivery resend` (a new attempt series, same event).
  scope.post('/payments/:id/resend', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    if (!checkForm(request, reply)) return reply;
    const session = sessionOf(request);
    const tx = await paymentFor(request);
    // Without `event`: the payment's result notification; with it: one of this payment's refund notifications.
    const asked = formBody(request).event;
    const event =
      typeof asked === 'string' && asked !== ''
        ? await outbox.findById(asked.slice(0, 100))
        : await outbox.findByTransaction(tx.id);
    if (!event || event.transactionId !== tx.id)
      throw new GatewayError('NOT_FOUND', 'This payment has no such notification.');
    const result = await resendNotification(services.store, event.id, services.now());
    // Wake this instance's delivery worker now (others: NOTIFY on PostgreSQL, their poll on SQLite).
    for (const listener of services.finalisedListeners) listener(tx.id, event.id);
    await c.audit.record(
      { role: session.subject.role, id: session.subject.id },
      'delivery.resend',
      event.id,
      { transactionid: tx.id, refundid: event.refundId, series: result.series, previous_status: result.previousStatus },
      remoteOrigin(request),
    );
    return reply.redirect(
      `${kit.root}/payments/${tx.id}?done=resent&series=${result.series}${event.refundId ? '#refunds' : '#notification'}`,
      303,
    );
  });

  // The same use case as POST /transaction/refund, on behalf of the payment's merchant.
  scope.post('/payments/:id/refund', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    if (!checkForm(request, reply)) return reply;
    const session = sessionOf(request);
    const tx = await paymentFor(request);
    const body = formBody(request);
    const input = validateRefund({
      transactionid: tx.id,
      bill_amount: typeof body.amount === 'string' ? body.amount.trim().replace(/,/g, '') : '',
      bill_currencycode: tx.currency,
      reason: typeof body.reason === 'string' ? body.reason : null,
      refund_reference: typeof body.refund_key === 'string' ? body.refund_key : null,
    });
    const outcome = await services.refund.execute(tx.merchantId, input);
    if (!outcome.replayed) {
      await c.audit.record(
        { role: session.subject.role, id: session.subject.id },
        'payment.refund',
        tx.id,
        {
          refundid: outcome.refund.id,
          amount: formatMinor(outcome.refund.amountMinor, currencyExponent(outcome.refund.currency)),
          currency: outcome.refund.currency,
          reason: outcome.refund.reason,
        },
        remoteOrigin(request),
      );
    }
    return reply.redirect(`${kit.root}/payments/${tx.id}?done=refunded&refund=${outcome.refund.id}#refunds`, 303);
  });

  // Sandbox only: the same use case as POST /sandbox/transaction/complete.
  scope.post('/payments/:id/complete', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    if (!sandbox) throw new GatewayError('NOT_FOUND', 'Sandbox completion is not available in live mode.');
    if (!checkForm(request, reply)) return reply;
    const session = sessionOf(request);
    const outcome = formBody(request).outcome;
    if (!isSandboxOutcome(outcome))
      throw new GatewayError(
        'INVALID_FIELD',
        `The field 'outcome' is invalid: it must be one of ${SANDBOX_OUTCOMES.join(', ')}.`,
      );
    const tx = await paymentFor(request);
    try {
      await services.complete.execute(tx.id, 'sandbox', {
        override: outcome,
        ...(scopeOf(session) !== undefined && { merchantId: scopeOf(session)! }),
      });
    } catch (error) {
      if (isGatewayError(error) && error.tag === 'INVALID_STATE')
        return reply.redirect(`${kit.root}/payments/${tx.id}`, 303); // someone finished it first: show what won
      throw error;
    }
    await c.audit.record(
      { role: session.subject.role, id: session.subject.id },
      'payment.complete',
      tx.id,
      { outcome: outcome as string },
      remoteOrigin(request),
    );
    return reply.redirect(`${kit.root}/payments/${tx.id}?done=completed`, 303);
  });
}

/** Amount as a plain decimal for a form field (exact, the currency's digits). */
function plainAmount(minor: bigint, currency: string): string {
  return formatMinor(minor, currencyExponent(currency));
}

/**
 * The payment's refunds, each with its notification, and for a SUCCESS payment with
 * something left to refund, a refund form. The form carries a fresh idempotency key per page
 * view: a double submit refunds once, a second refund needs the page again.
 */
function refundsSection(
  kit: ConsoleKit,
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
        : html`<div class="scroll"><table><thead><tr><th>${d.refundId}</th><th>${t.payments.created}</th><th class="num">${t.payments.amount}</th><th class="num">${d.refundedTotal}</th><th>${d.reason}</th><th>${d.refundReference}</th><th>${d.notification}</th></tr></thead><tbody>
          ${refunds.map((r, i) => {
            const e = events[i];
            return html`<tr><td class="mono">${r.id}</td><td>${formatTime(r.createdAt)}</td><td class="num">${formatAmount(r.amountMinor, r.currency)}</td><td class="num">${formatAmount(r.refundedAfterMinor, r.currency)}</td><td>${r.reason ?? ''}</td><td>${r.reference ?? ''}</td><td>${
              e
                ? html`<span class="pill s-${e.status}">${t.delivery[e.status]}</span> <span class="muted">(${d.attempts}: ${String(e.attempts)})</span>
                    <form class="inline" method="post" action="${kit.root}/payments/${tx.id}/resend">${csrfField(csrf)}<input type="hidden" name="event" value="${e.id}"><button type="submit" class="secondary">${d.resend}</button></form>`
                : ''
            }</td></tr>`;
          })}
        </tbody></table></div>`
    }
    ${
      tx.status === 'SUCCESS' && refundable > 0n
        ? html`<p class="muted">${d.refundHint}</p><form method="post" action="${kit.root}/payments/${tx.id}/refund" class="filters">${csrfField(csrf)}<input type="hidden" name="refund_key" value="${`console-${randomToken(16)}`}">
            <div><label for="refund_amount">${t.payments.amount} (${tx.currency})</label><input id="refund_amount" name="amount" inputmode="decimal" required maxlength="32" value="${plainAmount(refundable, tx.currency)}"></div>
            <div><label for="refund_reason">${d.refundReason}</label><input id="refund_reason" name="reason" maxlength="255"></div>
            <div class="actions"><button type="submit">${d.refundSubmit}</button></div></form>`
        : null
    }
  </section>`;
}
