// Notifications, what needs a person first: the page opens on the failing ones — failed, or
// pending and retrying after a failed attempt — with tabs for failed, pending, delivered and
// all; newest first, keyset pages on (created_at, id) — the same OutboxRepo.list the CLI's
// `delivery list` uses. Merchants see only their own.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html, raw } from '../../hosted-page/html.ts';
import { languageOf, scopeOf, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS } from '../texts.ts';

const TABS = ['attention', 'failed', 'pending', 'delivered', 'all'] as const;
type Tab = (typeof TABS)[number];
const PAGE_SIZE = 50;
const CURSOR = /^(\d{1,16})\.(evt_[A-Za-z0-9_-]{1,64})$/;
const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function registerDeliveryRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  const outbox = deps.notifications;

  scope.get('/deliveries', async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
    const lang = languageOf(request, reply, deps);
    const t = CONSOLE_TEXTS[lang];
    const d = t.deliveries;
    const session = sessionOf(request);
    const operator = session.subject.role === 'operator';
    const tab: Tab = TABS.includes(request.query.status as Tab) ? (request.query.status as Tab) : 'attention';
    const cursor = typeof request.query.before === 'string' ? CURSOR.exec(request.query.before) : null;
    // Operators may narrow to one merchant (like `delivery list --merchant`); a merchant is always scoped to itself.
    const asked =
      typeof request.query.merchant === 'string' && MERCHANT_ID.test(request.query.merchant)
        ? request.query.merchant
        : undefined;
    const merchantId = scopeOf(session) ?? asked;
    const keep = operator && asked ? `&merchant=${encodeURIComponent(asked)}` : '';
    const rows = await outbox.list({
      limit: PAGE_SIZE + 1,
      ...(merchantId !== undefined && { merchantId }),
      ...(tab !== 'all' && { status: tab }),
      ...(cursor && { before: { createdAt: Number(cursor[1]), id: cursor[2]! } }),
    });
    const events = rows.slice(0, PAGE_SIZE);
    const last = events.at(-1);
    const next =
      rows.length > PAGE_SIZE && last
        ? `${deps.root}/deliveries?status=${tab}${keep}&before=${last.createdAt}.${last.id}`
        : undefined;
    const tabLink = (key: Tab) =>
      html`<a class="button${tab === key ? '' : ' secondary'}" href="${deps.root}/deliveries?status=${key}${keep}"${raw(tab === key ? ' aria-current="page"' : '')}>${d[key]}</a>`;
    const body = html`<h1>${d.heading}</h1>
      <nav class="actions tabs" aria-label="${d.heading}">${TABS.map(tabLink)}</nav>
      ${operator ? html`<div class="card"><form method="get" action="${deps.root}/deliveries" class="actions"><input type="hidden" name="status" value="${tab}"><div><label for="merchant">${t.payments.merchant}</label><input id="merchant" name="merchant" value="${asked ?? ''}" maxlength="64"></div><button type="submit">${t.payments.submit}</button></form></div>` : null}
      <div class="card scroll">${
        events.length === 0
          ? html`<p>${d.none}</p>`
          : html`<table><thead><tr><th>${t.payments.created}</th><th class="key">${t.detail.deliveryStatus}</th><th class="num">${t.detail.attempts}</th>${operator ? html`<th>${t.payments.merchant}</th>` : null}<th>${t.detail.lastError}</th><th>${t.detail.nextAttempt}</th><th class="key">${d.payment}</th></tr></thead><tbody>
            ${events.map(
              (e) =>
                html`<tr><td>${formatTime(e.createdAt)}</td><td><span class="pill s-${e.status}">${t.delivery[e.status]}</span></td><td class="num">${String(e.attempts)}</td>${operator ? html`<td class="mono">${e.merchantId}</td>` : null}<td>${e.lastError ?? ''}</td><td>${e.status === 'pending' ? formatTime(e.nextAttemptAt) : ''}</td><td class="mono"><a href="${deps.root}/payments/${e.transactionId}${e.refundId ? '#refunds' : '#notification'}">${e.transactionId}</a>${e.refundId ? html` <span class="muted">(${e.refundId})</span>` : null}</td></tr>`,
            )}</tbody></table>`
      }</div>
      <nav class="pager">${cursor ? html`<a href="${deps.root}/deliveries?status=${tab}${keep}">${t.payments.first}</a>` : null}${next ? html`<a rel="next" href="${next}">${t.payments.next}</a>` : null}</nav>`;
    return sendPage(deps, request, reply, { lang, title: d.heading, body, session, nav: 'deliveries' });
  });
}
