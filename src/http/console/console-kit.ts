// The console's request plumbing: paths under PUBLIC_BASE_URL, the session cookie, the
// language, CSRF tokens and form fields. Pages (console/pages/*.ts) read the request with these,
// call one use case and lay out the answer (page-shell.ts).
//
// Cookies: `gw_console` (the session token; HttpOnly, SameSite=Strict, Path=<base>/console,
// Secure in live mode or behind an https PUBLIC_BASE_URL) and `gw_console_lang` (th|en, a
// preference only). CSRF: the hosted page's HMAC double-submit design (hosted-page/security.ts)
// — the form token is HMAC(key, purpose ‖ gw_csrf cookie), where the purpose binds it to the
// session (or to the login form before there is one).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { merchantScopeOf } from '../../app/console/console-accounts.ts';
import type { AuditOrigin } from '../../app/console/console-audit.ts';
import type { ActiveSession } from '../../app/console/console-sessions.ts';
import { csrfToken, csrfValid, ensureCsrfCookie } from '../hosted-page/security.ts';
import type { ConsoleSite } from './console-deps.ts';
import { isConsoleLang, type ConsoleLang } from './texts.ts';

export const SESSION_COOKIE = 'gw_console';
export const LANG_COOKIE = 'gw_console_lang';

/**
 * The URL the browser used for this request: the routes see `/console/…`, but a reverse proxy
 * that mounts the gateway under PUBLIC_BASE_URL's path strips that prefix on the way in.
 */
export function browserUrl(site: ConsoleSite, request: FastifyRequest): string {
  return `${site.root}${request.url.replace(/^\/console/, '')}`;
}

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
  site: ConsoleSite,
  name: string,
  value: string,
  options: { maxAgeSeconds?: number; httpOnly?: boolean } = {},
): void {
  const parts = [`${name}=${value}`, `Path=${site.root}`, 'SameSite=Strict'];
  if (options.httpOnly !== false) parts.push('HttpOnly');
  if (site.secureCookies) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  reply.header('set-cookie', parts.join('; '));
}

/** `?lang=` switches and remembers; else the remembered choice; else the browser's; else Thai. */
export function languageOf(request: FastifyRequest, reply: FastifyReply, site: ConsoleSite): ConsoleLang {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isConsoleLang(asked)) {
    setCookie(reply, site, LANG_COOKIE, asked, { maxAgeSeconds: 365 * 86_400 });
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
  return merchantScopeOf(session.subject);
}

const sessionPurpose = (session: ActiveSession) => `console-session:${session.idHash}`;
export const LOGIN_PURPOSE = 'console-login';

export function formToken(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ActiveSession | undefined,
): string {
  const cookie = ensureCsrfCookie(request, reply, site.secureCookies);
  return csrfToken(site.key, session ? sessionPurpose(session) : LOGIN_PURPOSE, cookie);
}

export function formTokenValid(
  site: ConsoleSite,
  request: FastifyRequest,
  session: ActiveSession | undefined,
  token: unknown,
): boolean {
  return csrfValid(site.key, request, session ? sessionPurpose(session) : LOGIN_PURPOSE, token);
}

/**
 * A confirmation step's token: the session's form token bound to what is confirmed (`subject`),
 * so that only the second post of exactly what the confirmation page showed goes through.
 */
export function confirmToken(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ActiveSession,
  subject: string,
): string {
  const cookie = ensureCsrfCookie(request, reply, site.secureCookies);
  return csrfToken(site.key, `console-confirm:${session.idHash}\0${subject}`, cookie);
}

export function confirmTokenValid(
  site: ConsoleSite,
  request: FastifyRequest,
  session: ActiveSession,
  subject: string,
  token: unknown,
): boolean {
  return csrfValid(site.key, request, `console-confirm:${session.idHash}\0${subject}`, token);
}

/** Where a request came from, for its audit entry: the client address and the answer's x-request-id. */
export function remoteOrigin(request: FastifyRequest): AuditOrigin {
  return { remoteAddr: request.ip ?? null, requestId: String(request.id) };
}

export function formBody(request: FastifyRequest): Record<string, unknown> {
  return request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
}

export const text = (value: unknown, max = 200): string =>
  typeof value === 'string' ? value.trim().slice(0, max) : '';
