// The web console under /console (docs/console.md): its own Fastify scope with its own form
// parser, session check, error pages and not-found page, so nothing here touches the JSON API.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerFormParser } from '../hosted-page/form-body.ts';
import { consoleErrorHandler, consoleNotFound } from './console-errors.ts';
import { attachSession, browserUrl, readCookie, SESSION_COOKIE } from './console-kit.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { registerAttentionRoutes } from './pages/attention.ts';
import { registerAuditRoutes } from './pages/audit.ts';
import { registerBalanceRoutes } from './pages/balances.ts';
import { registerDeliveryRoutes } from './pages/deliveries.ts';
import { registerLoginRoutes } from './pages/login.ts';
import { registerMerchantRoutes } from './pages/merchants.ts';
import { registerPaymentActionRoutes } from './pages/payment-actions.ts';
import { registerPaymentDetailRoute } from './pages/payment-detail.ts';
import { registerPaymentListRoute } from './pages/payment-list.ts';
import { registerPostingsCsvRoute } from './pages/postings-csv.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console routes reachable without a session (the login form). */
    consolePublic?: boolean;
    /** Console routes only operators may use (merchants get the same 404 as an unknown page). */
    consoleOperatorOnly?: boolean;
  }
}

export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  if (!deps.enabled) return; // /console/… then answers the API's 404 like any unknown path
  await app.register(
    async (scope) => {
      registerFormParser(scope);
      const notFound = consoleNotFound(deps);
      scope.addHook('preHandler', sessionCheck(deps, notFound));
      scope.setErrorHandler(consoleErrorHandler(deps));
      scope.setNotFoundHandler(notFound);

      scope.get('/', async (_request, reply) => reply.redirect(`${deps.root}/payments`, 303));
      registerLoginRoutes(scope, deps);
      registerPaymentListRoute(scope, deps);
      registerPaymentDetailRoute(scope, deps);
      registerPaymentActionRoutes(scope, deps);
      registerDeliveryRoutes(scope, deps);
      registerBalanceRoutes(scope, deps);
      registerPostingsCsvRoute(scope, deps);
      registerAttentionRoutes(scope, deps);
      registerMerchantRoutes(scope, deps);
      registerAuditRoutes(scope, deps);
    },
    { prefix: '/console' },
  );
}

/** Every route but the public ones needs a live session; operator-only ones are a 404 for merchants. */
function sessionCheck(
  deps: ConsoleDeps,
  notFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const config = request.routeOptions.config;
    if (config?.consolePublic) return;
    const cookie = readCookie(request, SESSION_COOKIE);
    const session = await deps.sessions.resolve(cookie);
    if (!session) {
      // To the login form, which brings them back for a GET. "Your session ended" only for a
      // browser that had a session cookie, not for a first visit.
      const query = new URLSearchParams({
        ...(cookie !== undefined && { ended: '1' }),
        ...(request.method === 'GET' && { next: browserUrl(deps, request) }),
      }).toString();
      return reply.redirect(`${deps.root}/login${query ? `?${query}` : ''}`, 303);
    }
    attachSession(request, session);
    if (config?.consoleOperatorOnly && session.subject.role !== 'operator') return notFound(request, reply);
  };
}
