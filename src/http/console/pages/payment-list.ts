// GET /console/payments: the search form and one page of results, newest first, keyset pages on
// (created_at, id). A merchant's search is confined to its own payments (ConsolePaymentReads).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TransactionStatus } from '../../../domain/lifecycle.ts';
import type { TransactionRecord } from '../../../domain/transaction.ts';
import type { PaymentListItem } from '../../../app/ports/console.ts';
import { html, raw, type SafeHtml } from '../../hosted-page/html.ts';
import { formatAmount } from '../../hosted-page/page-view.ts';
import { languageOf, scopeOf, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleTexts } from '../texts.ts';
import { PAGE_SIZE, parseSearch, STATES, type ParsedSearch } from './payment-search.ts';

type Query = Record<string, unknown>;

export const statePill = (t: ConsoleTexts, status: TransactionStatus): SafeHtml =>
  html`<span class="pill s-${status}">${t.states[status]}</span>`;

/** The state and, once money went back, Refunded or Partially refunded beside it. */
export function paymentStatePills(
  t: ConsoleTexts,
  tx: Pick<TransactionRecord, 'status' | 'amountMinor' | 'refundedMinor'>,
): SafeHtml {
  if (tx.refundedMinor === 0n) return statePill(t, tx.status);
  const full = tx.refundedMinor >= tx.amountMinor;
  // One span around both pills: a phone's table card lays a cell's content out as one table cell.
  return html`<span class="pills">${statePill(t, tx.status)} <span class="pill s-${full ? 'refunded' : 'partially-refunded'}">${full ? t.refundStates.full : t.refundStates.partial}</span></span>`;
}

function listUrl(root: string, form: Record<string, string>, before?: string): string {
  const params = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
  if (before) params.set('before', before);
  const qs = params.toString();
  return `${root}/payments${qs ? `?${qs}` : ''}`;
}

export function registerPaymentListRoute(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get('/payments', async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
    const lang = languageOf(request, reply, deps);
    const t = CONSOLE_TEXTS[lang];
    const session = sessionOf(request);
    const parsed = parseSearch(request.query, scopeOf(session));
    const rows = parsed.problems.length > 0 ? [] : await deps.payments.search(parsed.search, session.subject);
    const operator = session.subject.role === 'operator';
    const body = listBody(deps.root, t, parsed, rows, operator);
    return sendPage(
      deps,
      request,
      reply,
      { lang, title: t.payments.heading, body, session, nav: 'payments' },
      parsed.problems.length > 0 ? 400 : 200,
    );
  });
}

/** `rows`: up to PAGE_SIZE + 1 rows; one more than a page means there is a next page. */
function listBody(
  root: string,
  t: ConsoleTexts,
  { search, form, problems }: ParsedSearch,
  rows: PaymentListItem[],
  operator: boolean,
): SafeHtml {
  const page = rows.slice(0, PAGE_SIZE);
  const last = page.at(-1);
  const nextCursor = rows.length > PAGE_SIZE && last ? `${last.createdAt}.${last.id}` : undefined;
  const p = t.payments;
  const option = (value: string, label: string) =>
    html`<option value="${value}"${raw(form.state === value ? ' selected' : '')}>${label}</option>`;
  return html`<h1>${p.heading}</h1>
      <div class="card"><form class="filters" method="get" action="${root}/payments" role="search">
        <div class="wide"><label for="q">${p.search} <span class="muted">(${p.searchHint})</span></label><input id="q" name="q" value="${form.q}" maxlength="254"></div>
        <div><label for="amount">${p.amount}</label><input id="amount" name="amount" value="${form.amount}" inputmode="decimal" maxlength="32"${raw(problems.includes('amount') ? ' aria-invalid="true"' : '')}></div>
        <div><label for="state">${p.state}</label><select id="state" name="state">${option('', p.anyState)}${STATES.map((s) => option(s, t.states[s]))}</select></div>
        ${operator ? html`<div><label for="merchant">${p.merchant}</label><input id="merchant" name="merchant" value="${form.merchant}" maxlength="64"></div>` : null}
        <div><label for="from">${p.from}</label><input id="from" name="from" type="date" value="${form.from}"${raw(problems.includes('from') ? ' aria-invalid="true"' : '')}></div>
        <div><label for="to">${p.to}</label><input id="to" name="to" type="date" value="${form.to}"${raw(problems.includes('to') ? ' aria-invalid="true"' : '')}></div>
        <div class="actions"><button type="submit">${p.submit}</button><a class="button secondary" href="${root}/payments">${p.clear}</a></div>
      </form></div>
      ${problems.length > 0 ? html`<p class="notice error" role="alert">${t.errors.badRequestTitle}: ${problems.map((f) => ({ amount: p.amount, state: p.state, from: p.from, to: p.to })[f] ?? f).join(', ')}</p>` : null}
      <div class="card scroll">${
        page.length === 0
          ? html`<p>${p.none}</p>`
          : html`<table><thead><tr><th>${p.created}</th><th class="key">${p.trackid}</th>${operator ? html`<th>${p.merchant}</th>` : null}<th class="num key">${p.amount}</th><th class="key">${p.state}</th><th>${p.email}</th><th>${p.transactionid}</th></tr></thead><tbody>
            ${page.map(
              (tx) =>
                html`<tr><td>${formatTime(tx.createdAt)}</td><td class="mono"><a href="${root}/payments/${tx.id}">${tx.trackid}</a></td>${operator ? html`<td class="mono">${tx.merchantId}</td>` : null}<td class="num">${formatAmount(tx.amountMinor, tx.currency)}</td><td>${paymentStatePills(t, tx)}</td><td>${tx.billEmail}</td><td class="mono"><a href="${root}/payments/${tx.id}">${tx.id}</a></td></tr>`,
            )}</tbody></table>`
      }</div>
      <nav class="pager">${search.before ? html`<a href="${listUrl(root, form)}">${p.first}</a>` : null}${nextCursor ? html`<a rel="next" href="${listUrl(root, form, nextCursor)}">${p.next}</a>` : null}</nav>`;
}
