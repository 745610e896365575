// The console's request plumbing: paths under PUBLIC_BASE_URL, the session cookie, the
// language, CSRF tokens, response headers and the page shell. Pages (console/pages/*.ts) only
// read and lay out; every change goes through the same use cases as the API and the CLI.
//
// Cookies: `gw_console` (the session token; HttpOnly, SameSite=Strict, Path=<base>/console,
// Secure in live mode or behind an https PUBLIC_BASE_URL) and `gw_console_lang` (th|en, a
// preference only). CSRF: the hosted page's HMAC double-submit design (hosted-page/security.ts)
// — the form token is HMAC(key, purpose ‖ gw_csrf cookie), where the purpose binds it to the
// session (or to the login form before there is one).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../app/services.ts';
import type { ConsoleServices } from '../../app/console/console-services.ts';
import type { ActiveSession } from '../../app/console/console-sessions.ts';
import { html, raw, type SafeHtml } from '../hosted-page/html.ts';
import { csrfToken, csrfValid, ensureCsrfCookie, newNonce, setPageHeaders } from '../hosted-page/security.ts';
import { CONSOLE_CSS } from './styles.ts';
import { CONSOLE_TEXTS, isConsoleLang, type ConsoleLang, type ConsoleTexts } from './texts.ts';

export const SESSION_COOKIE = 'gw_console';
export const LANG_COOKIE = 'gw_console_lang';

export type ConsoleKit = {
  services: Services;
  console: ConsoleServices;
  /** `<base path>/console`: every link and form action starts here. */
  root: string;
  secureCookies: boolean;
};

/**
 * The URL the browser used for this request: the routes see `/console/…`, but a reverse proxy
 * that mounts the gateway under PUBLIC_BASE_URL's path strips that prefix on the way in.
 */
export function browserUrl(kit: ConsoleKit, request: FastifyRequest): string {
  return `${kit.root}${request.url.replace(/^\/console/, '')}`;
}

export type NavKey = 'payments' | 'deliveries' | 'balances' | 'merchants' | 'audit';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function setCookie(
  reply: FastifyReply,
  kit: ConsoleKit,
  name: string,
  value: string,
  options: { maxAgeSeconds?: number; httpOnly?: boolean } = {},
): void {
  const parts = [`${name}=${value}`, `Path=${kit.root}`, 'SameSite=Strict'];
  if (options.httpOnly !== false) parts.push('HttpOnly');
  if (kit.secureCookies) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  reply.header('set-cookie', parts.join('; '));
}

/** `?lang=` switches and remembers; else the remembered choice; else the browser's; else Thai. */
export function languageOf(request: FastifyRequest, reply: FastifyReply, kit: ConsoleKit): ConsoleLang {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isConsoleLang(asked)) {
    setCookie(reply, kit, LANG_COOKIE, asked, { maxAgeSeconds: 365 * 86_400 });
    return asked;
  }
  const remembered = readCookie(request, LANG_COOKIE);
  if (isConsoleLang(remembered)) return remembered;
  const accept = request.headers['accept-language'] ?? '';
  return /^\s*en\b/i.test(accept) ? 'en' : 'th';
}

const sessions = new WeakMap<FastifyRequest, ActiveSession>();

export function sessionOf(request: FastifyRequest): ActiveSession {
  const session = sessions.get(request);
  if (!session) throw new Error('console route reached without a session');
  return session;
}

/** The request's session when the session check ran and found one (error pages keep the menu). */
export function maybeSessionOf(request: FastifyRequest): ActiveSession | undefined {
  return sessions.get(request);
}

export function attachSession(request: FastifyRequest, session: ActiveSession): void {
  sessions.set(request, session);
}

/** A merchant sees only its own rows: the id to scope every query by, or undefined for operators. */
export function scopeOf(session: ActiveSession): string | undefined {
  return session.subject.role === 'merchant' ? session.subject.id : undefined;
}

const sessionPurpose = (session: ActiveSession) => `console-session:${session.idHash}`;
export const LOGIN_PURPOSE = 'console-login';

export function formToken(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ActiveSession | undefined,
): string {
  const cookie = ensureCsrfCookie(request, reply, kit.secureCookies);
  return csrfToken(kit.services.key, session ? sessionPurpose(session) : LOGIN_PURPOSE, cookie);
}

export function formTokenValid(
  kit: ConsoleKit,
  request: FastifyRequest,
  session: ActiveSession | undefined,
  token: unknown,
): boolean {
  return csrfValid(kit.services.key, request, session ? sessionPurpose(session) : LOGIN_PURPOSE, token);
}

export type Shell = {
  lang: ConsoleLang;
  title: string;
  body: SafeHtml;
  session?: ActiveSession;
  nav?: NavKey;
  /** Where the language switch leads (a GET page); defaults to the current URL. */
  langHref?: string;
};

export type PageRender = { t: ConsoleTexts; lang: ConsoleLang; csrf: string; session: ActiveSession | undefined };

/** Hidden CSRF field for a form. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="csrf" value="${token}">`;

function withLang(href: string, lang: ConsoleLang): string {
  const url = new URL(href, 'http://console.invalid');
  url.searchParams.set('lang', lang);
  return `${url.pathname}${url.search}`;
}

export function sendPage(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  shell: Shell,
  status = 200,
): FastifyReply {
  const nonce = newNonce();
  setPageHeaders(reply, nonce);
  const t = CONSOLE_TEXTS[shell.lang];
  const other: ConsoleLang = shell.lang === 'th' ? 'en' : 'th';
  const langLink = html`<a class="lang" href="${withLang(shell.langHref ?? browserUrl(kit, request), other)}" hreflang="${other}" lang="${other}">${t.switchTo}</a>`;
  const session = shell.session;
  const link = (key: NavKey, path: string) =>
    html`<a href="${kit.root}${path}"${raw(shell.nav === key ? ' aria-current="page"' : '')}>${t.nav[key]}</a>`;
  const operator = session?.subject.role === 'operator';
  const header = session
    ? html`<header><div class="bar">
        <a class="brand" href="${kit.root}/payments">${t.title}</a>
        <nav class="main" aria-label="${t.title}">
          ${link('payments', '/payments')}${link('deliveries', '/deliveries')}${link('balances', '/balances')}
          ${operator ? [link('merchants', '/merchants'), link('audit', '/audit')] : null}
        </nav>
        <span class="who">${t.signedInAs(session.subject.name, t.role[session.subject.role])}</span>
        ${langLink}
        <form class="inline" method="post" action="${kit.root}/logout">${csrfField(formToken(kit, request, reply, session))}<button class="linkish" type="submit">${t.nav.logout}</button></form>
      </div></header>`
    : html`<header><div class="bar"><span class="brand">${t.title}</span>${langLink}</div></header>`;
  const page = html`<!doctype html>
<html lang="${shell.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><link rel="icon" href="data:,"><title>${shell.title} · ${t.title}</title>
<style nonce="${nonce}">${raw(CONSOLE_CSS)}</style></head>
<body>${header}<main id="main">${shell.body}</main></body></html>`;
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

export function messageBody(title: string, text: string, back?: { href: string; label: string }): SafeHtml {
  return html`<h1>${title}</h1><div class="card"><p>${text}</p>${back ? html`<p><a href="${back.href}">${back.label}</a></p>` : null}</div>`;
}

// ---- formatting shared by the pages ----

/**
 * `2026-11-24 05:31:02` in Thailand's time (UTC+7, no daylight saving time), unambiguous in both
 * languages. Shifting by the fixed offset costs far less than Intl.DateTimeFormat per cell.
 */
export function formatTime(ms: number | null): string {
  if (ms === null) return '—';
  const iso = new Date(ms + BANGKOK_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** Thailand has no daylight saving time: a day there starts at 17:00 UTC the day before. */
export const BANGKOK_OFFSET_MS = 7 * 3_600_000;

export function remoteOrigin(request: FastifyRequest): { remoteAddr: string | null; requestId: string | null } {
  return { remoteAddr: request.ip ?? null, requestId: String(request.id) };
}

export function formBody(request: FastifyRequest): Record<string, unknown> {
  return request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
}

export const text = (value: unknown, max = 200): string =>
  typeof value === 'string' ? value.trim().slice(0, max) : '';
