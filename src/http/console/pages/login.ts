// GET/POST /console/login, POST /console/logout: the forms and cookies; throttling, checking the
// password and TOTP code, the session and the audit entries are ConsoleLogin's
// (app/console/console-login.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  formBody,
  formTokenValid,
  languageOf,
  readCookie,
  remoteOrigin,
  sessionOf,
  SESSION_COOKIE,
  setCookie,
  text,
} from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { loginPage, safeNext, type Notice } from './login-page.ts';

export function registerLoginRoutes(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get(
    '/login',
    { config: { consolePublic: true } },
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
      const lang = languageOf(request, reply, deps);
      if (await deps.sessions.resolve(readCookie(request, SESSION_COOKIE)))
        return reply.redirect(`${deps.root}/payments`, 303);
      const q = request.query;
      const notice: Notice | undefined = q.loggedout === '1' ? 'loggedOut' : q.ended === '1' ? 'expired' : undefined;
      return loginPage(deps, request, reply, lang, { ...(notice && { notice }), next: safeNext(deps, q.next) });
    },
  );

  scope.post('/login', { config: { consolePublic: true } }, async (request, reply) => {
    const lang = languageOf(request, reply, deps);
    const body = formBody(request);
    const role = body.role === 'merchant' ? 'merchant' : 'operator';
    const username = text(body.username, 64);
    const next = safeNext(deps, body.next);
    if (!formTokenValid(deps, request, undefined, body.csrf))
      return loginPage(deps, request, reply, lang, { notice: 'forbidden', role, username, next }, 403);
    const outcome = await deps.login.attempt({
      role,
      username,
      password: typeof body.password === 'string' ? body.password : '',
      totp: text(body.totp, 16),
      origin: remoteOrigin(request),
    });
    if (!outcome.ok) {
      if (outcome.reason === 'throttled') {
        reply.header('retry-after', '60');
        return loginPage(deps, request, reply, lang, { notice: 'throttled', role, username, next }, 429);
      }
      const notice = outcome.reason === 'disabled' ? 'disabled' : 'failed';
      return loginPage(deps, request, reply, lang, { notice, role, username, next }, 401);
    }
    setCookie(reply, deps, SESSION_COOKIE, outcome.sessionToken);
    return reply.redirect(next, 303);
  });

  // Logout needs the session (the preHandler checked it) and a valid form token.
  scope.post('/logout', async (request, reply) => {
    const lang = languageOf(request, reply, deps);
    const session = sessionOf(request);
    if (!formTokenValid(deps, request, session, formBody(request).csrf))
      return loginPage(deps, request, reply, lang, { notice: 'forbidden' }, 403);
    await deps.login.logout(session, remoteOrigin(request));
    setCookie(reply, deps, SESSION_COOKIE, '', { maxAgeSeconds: 0 });
    return reply.redirect(`${deps.root}/login?loggedout=1`, 303);
  });
}
