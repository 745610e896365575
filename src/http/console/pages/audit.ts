// Operators only: the audit log, newest first, keyset pages on (at, id), filterable by action.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from '../../hosted-page/html.ts';
import { languageOf, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { formatTime, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS } from '../texts.ts';

const PAGE_SIZE = 100;
const CURSOR = /^(\d{1,16})\.([0-9a-f-]{36})$/;
const ACTION = /^[a-z_.]{1,64}$/;

export function registerAuditRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get(
    '/audit',
    { config: { consoleOperatorOnly: true } },
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
      const lang = languageOf(request, reply, deps);
      const t = CONSOLE_TEXTS[lang];
      const a = t.audit;
      const action =
        typeof request.query.action === 'string' && ACTION.test(request.query.action)
          ? request.query.action
          : undefined;
      const cursor = typeof request.query.before === 'string' ? CURSOR.exec(request.query.before) : null;
      const rows = await deps.auditLog.list({
        limit: PAGE_SIZE + 1,
        ...(action && { action }),
        ...(cursor && { before: { at: Number(cursor[1]), id: cursor[2]! } }),
      });
      const entries = rows.slice(0, PAGE_SIZE);
      const last = entries.at(-1);
      const filter = action ? `action=${encodeURIComponent(action)}&` : '';
      const next =
        rows.length > PAGE_SIZE && last ? `${deps.root}/audit?${filter}before=${last.at}.${last.id}` : undefined;
      const body = html`<h1>${a.heading}</h1>
      <div class="card"><form method="get" action="${deps.root}/audit" class="actions"><div><label for="action">${a.action}</label><input id="action" name="action" value="${action ?? ''}" maxlength="64"></div><button type="submit">${t.payments.submit}</button></form></div>
      <div class="card scroll">${
        entries.length === 0
          ? html`<p>${a.none}</p>`
          : html`<table><thead><tr><th>${a.at}</th><th class="key">${a.who}</th><th class="key">${a.action}</th><th>${a.target}</th><th>${a.details}</th><th>${a.from}</th></tr></thead><tbody>
            ${entries.map(
              (e) =>
                html`<tr><td>${formatTime(e.at)}</td><td>${e.actorRole}${e.actorName ? html` <span class="mono">${e.actorName}</span>` : null}</td><td class="mono">${e.action}</td><td class="mono">${e.target ?? ''}</td><td class="mono">${Object.keys(e.details).length > 0 ? JSON.stringify(e.details) : ''}</td><td class="mono">${e.remoteAddr ?? ''}${e.requestId ? html`<br><span class="muted">${e.requestId}</span>` : null}</td></tr>`,
            )}</tbody></table>`
      }</div>
      <nav class="pager">${cursor ? html`<a href="${deps.root}/audit${action ? `?action=${encodeURIComponent(action)}` : ''}">${t.payments.first}</a>` : null}${next ? html`<a rel="next" href="${next}">${t.payments.next}</a>` : null}</nav>`;
      return sendPage(deps, request, reply, {
        lang,
        title: a.heading,
        body,
        session: sessionOf(request),
        nav: 'audit',
      });
    },
  );
}
