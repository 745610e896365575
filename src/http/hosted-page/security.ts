// Security of the hosted page: response headers (strict CSP with a per-response nonce) and
// CSRF protection of the confirm/cancel form posts.
//
// CSRF design (see docs/hosted-page.md): double-submit cookie bound by HMAC.
//   - The page sets a random cookie `gw_csrf` (128 bits, HttpOnly, SameSite=Strict, Path=/,
//     Secure when PUBLIC_BASE_URL is https) unless the browser already has one.
//   - Each form carries `csrf = HMAC-SHA256(gateway key, "hosted-page-csrf" ‖ redirect id ‖ cookie)`.
//   - A post is accepted only if the cookie is present and the field equals the HMAC of
//     the posted ID and that cookie (constant-time). A cross-site post carries no cookie
//     (SameSite=Strict); a token read in one browser is useless in another (bound to its
//     cookie) and for another payment (bound to the ID); nobody can mint one without the key.
//   - Defence in depth: a `Sec-Fetch-Site` header other than same-origin/none is refused.
//     The Origin header is not checked: with `Referrer-Policy: no-referrer` browsers send
//     `Origin: null` on form posts, so it carries no information here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { drawRandomBytes } from '../../domain/ids.ts';
import { hmacKey, type SecretKey } from '../../domain/credentials.ts';
import { isUrlHost } from '../../domain/url-host.ts';

export const CSRF_COOKIE = 'gw_csrf';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{22,64}$/;

/**
 * 144 random bits, new for every response. Drawn from the shared random pool (never hands out
 * the same bytes twice), so a page GET costs no getrandom call of its own.
 */
export function newNonce(): string {
  return drawRandomBytes(18).toString('base64');
}

/**
 * `form-action` must also allow the merchant's origin: browsers apply it to the redirect
 * that follows a form post, and our confirm/cancel posts end with a 303 to `returnUrl` (or to
 * `returnUrl_on_failure` for a cancelled or declined payment, so both origins are listed).
 */
export function contentSecurityPolicy(nonce: string, returnOrigin?: string | Array<string | undefined>): string {
  const origins = (Array.isArray(returnOrigin) ? returnOrigin : [returnOrigin]).filter((o): o is string => Boolean(o));
  const formAction = ["'self'", ...new Set(origins)].join(' ');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Headers on every hosted-page response (pages, the status JSON and error pages). */
export function setPageHeaders(
  reply: FastifyReply,
  nonce: string,
  returnOrigin?: string | Array<string | undefined>,
): void {
  setPageHeadersWithPolicy(reply, contentSecurityPolicy(nonce, returnOrigin));
}

/** The same, with the Content-Security-Policy already built (a cached page's, with this response's nonce). */
export function setPageHeadersWithPolicy(reply: FastifyReply, policy: string): void {
  reply.header('content-security-policy', policy);
  reply.header('cache-control', 'no-store');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
  reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/**
 * Origin of an http(s) URL whose host is a DNS name or an IP literal, or undefined (only such
 * origins go into the CSP). Initiation refuses other hosts; this keeps one stored before it did
 * out of the header.
 */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return isUrlHost(parsed.hostname) ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

export function readCsrfCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CSRF_COOKIE) {
      const value = rest.join('=');
      return COOKIE_VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** The browser's CSRF cookie, creating (and setting) one when it has none yet. */
export function ensureCsrfCookie(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = readCsrfCookie(request);
  if (existing) return existing;
  const value = drawRandomBytes(16).toString('base64url');
  reply.header('set-cookie', `${CSRF_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`);
  return value;
}

export function csrfToken(key: SecretKey, redirectId: string, cookie: string): string {
  return createHmac('sha256', hmacKey(key))
    .update('hosted-page-csrf\0')
    .update(redirectId)
    .update('\0')
    .update(cookie)
    .digest('base64url');
}

/** True only for a same-origin post whose token matches the ID and the browser's cookie. */
export function csrfValid(key: SecretKey, request: FastifyRequest, redirectId: string, token: unknown): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const cookie = readCsrfCookie(request);
  if (!cookie || typeof token !== 'string' || token.length > 100) return false;
  const expected = Buffer.from(csrfToken(key, redirectId, cookie));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
