// The console's page shell (header, menu, language switch, logout form, the one stylesheet by
// its nonce) and the small pieces pages share: message and 403 bodies, the CSRF field, times.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveSession } from '../../app/console/console-sessions.ts';
import { BANGKOK_OFFSET_MS } from '../../domain/bangkok-time.ts';
import { html, raw, type SafeHtml } from '../hosted-page/html.ts';
import { newNonce, setPageHeaders } from '../hosted-page/security.ts';
import { browserUrl, formToken } from './console-kit.ts';
import type { ConsoleSite } from './console-deps.ts';
import { CONSOLE_CSS } from './styles.ts';
import { tablesAsCards } from './table-cards.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from './texts.ts';

export type NavKey = 'payments' | 'deliveries' | 'balances' | 'attention' | 'merchants' | 'audit';

export type Shell = {
  lang: ConsoleLang;
  title: string;
  body: SafeHtml;
  session?: ActiveSession;
  nav?: NavKey;
  /** Where the language switch leads (a GET page); defaults to the current URL. */
  langHref?: string;
};

/** Hidden CSRF field for a form. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="csrf" value="${token}">`;

function withLang(href: string, lang: ConsoleLang): string {
  const url = new URL(href, 'http://console.invalid');
  url.searchParams.set('lang', lang);
  return `${url.pathname}${url.search}`;
}

export function sendPage(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  shell: Shell,
  status = 200,
): FastifyReply {
  const nonce = newNonce();
  setPageHeaders(reply, nonce);
  const t = CONSOLE_TEXTS[shell.lang];
  const other: ConsoleLang = shell.lang === 'th' ? 'en' : 'th';
  const langLink = html`<a class="lang" href="${withLang(shell.langHref ?? browserUrl(site, request), other)}" hreflang="${other}" lang="${other}">${t.switchTo}</a>`;
  const session = shell.session;
  const link = (key: NavKey, path: string, badge: SafeHtml | null = null) =>
    html`<a href="${site.root}${path}"${raw(shell.nav === key ? ' aria-current="page"' : '')}>${t.nav[key]}${badge}</a>`;
  const operator = session?.subject.role === 'operator';
  // The open items' count as kept in memory (app/open-attention.ts): no store read per page.
  const open = operator ? site.attention.openCount() : undefined;
  const attentionBadge = open ? html` <span class="pill s-FAILED">${String(open)}</span>` : null;
  const header = session
    ? html`<header><div class="bar">
        <a class="brand" href="${site.root}/payments">${t.title}</a>
        <nav class="main" aria-label="${t.title}">
          ${link('payments', '/payments')}${link('deliveries', '/deliveries')}${link('balances', '/balances')}
          ${operator ? [link('attention', '/attention', attentionBadge), link('merchants', '/merchants'), link('audit', '/audit')] : null}
        </nav>
        <span class="who">${t.signedInAs(session.subject.name, t.role[session.subject.role])}</span>
        ${langLink}
        <form class="inline" method="post" action="${site.root}/logout">${csrfField(formToken(site, request, reply, session))}<button class="linkish" type="submit">${t.nav.logout}</button></form>
      </div></header>`
    : html`<header><div class="bar"><span class="brand">${t.title}</span>${langLink}</div></header>`;
  const page = html`<!doctype html>
<html lang="${shell.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><link rel="icon" href="data:,"><title>${shell.title} · ${t.title}</title>
<style nonce="${nonce}">${raw(CONSOLE_CSS)}</style></head>
<body>${header}<main id="main">${raw(tablesAsCards(shell.body.value))}</main></body></html>`;
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

export function messageBody(title: string, text: string, back?: { href: string; label: string }): SafeHtml {
  return html`<h1>${title}</h1><div class="card"><p>${text}</p>${back ? html`<p><a href="${back.href}">${back.label}</a></p>` : null}</div>`;
}

/** The answer to a form post whose CSRF token is missing or wrong: 403, and nothing changed. */
export function sendForbidden(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  session: ActiveSession,
  langHref: string,
): FastifyReply {
  const t = CONSOLE_TEXTS[lang];
  return sendPage(
    site,
    request,
    reply,
    {
      lang,
      title: t.errors.forbiddenTitle,
      body: html`<h1>${t.errors.forbiddenTitle}</h1><div class="card"><p>${t.errors.forbiddenBody}</p></div>`,
      session,
      langHref,
    },
    403,
  );
}

// ---- formatting shared by the pages ----

/**
 * `2026-11-24 05:31:02 UTC+7`: Thailand's time (no daylight saving time), labelled so that it is
 * unambiguous in both languages and wherever it is copied to. Shifting by the fixed offset costs
 * far less than Intl.DateTimeFormat per cell.
 */
export function formatTime(ms: number | null): string {
  if (ms === null) return '—';
  const iso = new Date(ms + BANGKOK_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC+7`;
}
