// GET/POST /console/login, POST /console/logout. Logins are throttled per client address and
// per account (CONSOLE_LOGIN_LIMIT failures per CONSOLE_LOGIN_WINDOW) before any password is
// hashed, every outcome but a throttled one is audited, and a new session token is issued at
// each login (no fixation).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveSession } from '../../../app/console/console-sessions.ts';
import { html, raw } from '../../hosted-page/html.ts';
import {
  csrfField,
  formBody,
  formToken,
  formTokenValid,
  languageOf,
  readCookie,
  remoteOrigin,
  sendPage,
  sessionOf,
  SESSION_COOKIE,
  setCookie,
  text,
  type ConsoleKit,
} from '../console-kit.ts';
import { CONSOLE_TEXTS, type ConsoleLang } from '../texts.ts';

type Notice = 'failed' | 'disabled' | 'throttled' | 'loggedOut' | 'expired' | 'forbidden';

/** Only a path inside the console may follow a login (no open redirect). */
function safeNext(kit: ConsoleKit, next: unknown): string {
  if (
    typeof next === 'string' &&
    next.startsWith(`${kit.root}/`) &&
    !next.startsWith('//') &&
    !/[\\\s]/.test(next) &&
    next.length <= 2000 &&
    !next.startsWith(`${kit.root}/login`)
  )
    return next;
  return `${kit.root}/payments`;
}

function loginPage(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: ConsoleLang,
  options: { notice?: Notice; role?: string; username?: string; next?: string },
  status = 200,
) {
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
    <div class="card"><form method="post" action="${kit.root}/login">
      ${csrfField(formToken(kit, request, reply, undefined))}
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
  return sendPage(kit, request, reply, { lang, title: l.heading, body, langHref: `${kit.root}/login` }, status);
}

export function registerLoginRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { console: c } = kit;

  scope.get(
    '/login',
    { config: { consolePublic: true } },
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
      const lang = languageOf(request, reply, kit);
      if (await c.sessions.resolve(readCookie(request, SESSION_COOKIE)))
        return reply.redirect(`${kit.root}/payments`, 303);
      const q = request.query;
      const notice: Notice | undefined = q.loggedout === '1' ? 'loggedOut' : q.ended === '1' ? 'expired' : undefined;
      return loginPage(kit, request, reply, lang, { ...(notice && { notice }), next: safeNext(kit, q.next) });
    },
  );

  scope.post('/login', { config: { consolePublic: true } }, async (request, reply) => {
    const lang = languageOf(request, reply, kit);
    const body = formBody(request);
    const role = body.role === 'merchant' ? 'merchant' : 'operator';
    const username = text(body.username, 64);
    const next = safeNext(kit, body.next);
    if (!formTokenValid(kit, request, undefined, body.csrf))
      return loginPage(kit, request, reply, lang, { notice: 'forbidden', role, username, next }, 403);

    const keys = [`ip:${request.ip}`, `account:${role}:${username.toLowerCase()}`];
    if (keys.some((key) => c.failedLogins.exceeded(key))) {
      reply.header('retry-after', '60');
      return loginPage(kit, request, reply, lang, { notice: 'throttled', role, username, next }, 429);
    }
    const password = typeof body.password === 'string' ? body.password : '';
    const result =
      role === 'operator'
        ? await c.accounts.loginOperator(username, password, text(body.totp, 16))
        : await c.accounts.loginMerchant(username, password);
    if (!result.ok) {
      for (const key of keys) c.failedLogins.hit(key);
      await c.audit.record(
        { role: 'anonymous', id: null },
        'login.failed',
        `${role}:${username}`,
        { reason: result.reason },
        remoteOrigin(request),
      );
      return loginPage(
        kit,
        request,
        reply,
        lang,
        { notice: result.reason === 'disabled' ? 'disabled' : 'failed', role, username, next },
        401,
      );
    }
    const { token } = await c.sessions.start(result.subject.role, result.subject.id);
    await c.audit.record(
      { role: result.subject.role, id: result.subject.id },
      'login',
      null,
      {},
      remoteOrigin(request),
    );
    setCookie(reply, kit, SESSION_COOKIE, token);
    return reply.redirect(next, 303);
  });

  // Logout needs the session (the preHandler checked it) and a valid form token.
  scope.post('/logout', async (request, reply) => {
    const lang = languageOf(request, reply, kit);
    const session: ActiveSession = sessionOf(request);
    if (!formTokenValid(kit, request, session, formBody(request).csrf))
      return loginPage(kit, request, reply, lang, { notice: 'forbidden' }, 403);
    await c.sessions.end(session.idHash);
    await c.audit.record(
      { role: session.subject.role, id: session.subject.id },
      'logout',
      null,
      {},
      remoteOrigin(request),
    );
    setCookie(reply, kit, SESSION_COOKIE, '', { maxAgeSeconds: 0 });
    return reply.redirect(`${kit.root}/login?loggedout=1`, 303);
  });
}
