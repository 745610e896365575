// The login form, with the notice that brought the person there (failed, throttled, logged out,
// session ended …), and the one place a post-login destination is checked.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, raw } from '../../hosted-page/html.ts';
import { formToken } from '../console-kit.ts';
import type { ConsoleSite } from '../console-deps.ts';
import { csrfField, sendPage } from '../page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from '../texts.ts';

export type Notice = 'failed' | 'disabled' | 'throttled' | 'loggedOut' | 'expired' | 'forbidden';

/**
 * Only a path inside the console may follow a login (no open redirect). It goes into the
 * `Location` header, which carries only printable ASCII: any other character is percent-encoded
 * as UTF-8 (`/console/ก` → `/console/%E0%B8%81`), and a path that has no UTF-8 form (a lone
 * surrogate) is not followed.
 */
export function safeNext(site: ConsoleSite, next: unknown): string {
  if (
    typeof next === 'string' &&
    next.startsWith(`${site.root}/`) &&
    !next.startsWith('//') &&
    !/[\\\s]/.test(next) &&
    next.length <= 2000 &&
    !next.startsWith(`${site.root}/login`)
  ) {
    const encoded = headerSafe(next);
    if (encoded !== undefined && encoded.length <= 2000) return encoded;
  }
  return `${site.root}/payments`;
}

function headerSafe(path: string): string | undefined {
  try {
    return path.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return undefined; // URIError: a lone surrogate
  }
}

export function loginPage(
  site: ConsoleSite,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  options: { notice?: Notice; role?: string; username?: string; next?: string },
  status = 200,
): FastifyReply {
  const t = CONSOLE_TEXTS[lang];
  const l = t.login;
  const noticeText =
    options.notice === undefined
      ? undefined
      : options.notice === 'forbidden'
        ? t.errors.forbiddenBody
        : l[options.notice];
  const isError = options.notice !== undefined && options.notice !== 'loggedOut';
  const merchantRole = options.role === 'merchant';
  const body = html`<div class="login"><h1>${l.heading}</h1>
    ${noticeText ? html`<p class="notice${isError ? ' error' : ''}" role="${isError ? 'alert' : 'status'}">${noticeText}</p>` : null}
    <div class="card"><form method="post" action="${site.root}/login">
      ${csrfField(formToken(site, request, reply, undefined))}
      <input type="hidden" name="next" value="${options.next ?? ''}">
      <fieldset><legend>${l.as}</legend>
        <label><input type="radio" name="role" value="operator"${raw(merchantRole ? '' : ' checked')}> ${l.operator}</label>
        <label><input type="radio" name="role" value="merchant"${raw(merchantRole ? ' checked' : '')}> ${l.merchant}</label>
      </fieldset>
      <label for="username">${l.username}</label><input id="username" name="username" autocomplete="username" required maxlength="64" value="${options.username ?? ''}">
      <label for="password">${l.password}</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
      <label for="totp">${l.totp} <span class="muted">(${l.totpHint})</span></label><input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7">
      <button type="submit">${l.submit}</button>
    </form></div></div>`;
  return sendPage(site, request, reply, { lang, title: l.heading, body, langHref: `${site.root}/login` }, status);
}
