// The web console under /console (docs/console.md): its own Fastify scope with its own form
// parser, session check, error pages and not-found page, so nothing here touches the JSON API.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../app/services.ts';
import { createConsoleServices } from '../../app/console/console-services.ts';
import { isGatewayError } from '../../domain/errors.ts';
import { httpStatusOf } from '../edge/error-status.ts';
import { registerFormParser } from '../hosted-page/form-body.ts';
import {
  attachSession,
  browserUrl,
  languageOf,
  maybeSessionOf,
  messageBody,
  readCookie,
  sendPage,
  SESSION_COOKIE,
  type ConsoleKit,
} from './console-kit.ts';
import { registerLoginRoutes } from './pages/login.ts';
import { registerPaymentRoutes } from './pages/payments.ts';
import { registerDeliveryRoutes } from './pages/deliveries.ts';
import { registerBalanceRoutes } from './pages/balances.ts';
import { registerMerchantRoutes } from './pages/merchants.ts';
import { registerAuditRoutes } from './pages/audit.ts';
import { CONSOLE_TEXTS } from './texts.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console routes reachable without a session (the login form). */
    consolePublic?: boolean;
    /** Console routes only operators may use (merchants get the same 404 as an unknown page). */
    consoleOperatorOnly?: boolean;
  }
}

export async function registerConsole(app: FastifyInstance, services: Services): Promise<void> {
  if (!services.config.consoleEnabled) return; // /console/… then answers the API's 404 like any unknown path
  const basePath = new URL(services.config.publicBaseUrl).pathname.replace(/\/+$/, '');
  const kit: ConsoleKit = {
    services,
    console: createConsoleServices(services.config, services.store, services.key, services.now),
    root: `${basePath}/console`,
    secureCookies: services.config.mode === 'live' || services.config.publicBaseUrl.startsWith('https:'),
  };

  await app.register(
    async (scope) => {
      registerFormParser(scope);

      scope.addHook('preHandler', async (request, reply) => {
        const config = request.routeOptions.config;
        if (config?.consolePublic) return;
        const cookie = readCookie(request, SESSION_COOKIE);
        const session = await kit.console.sessions.resolve(cookie);
        if (!session) {
          // To the login form, which brings them back for a GET. "Your session ended" only for a
          // browser that had a session cookie, not for a first visit.
          const query = new URLSearchParams({
            ...(cookie !== undefined && { ended: '1' }),
            ...(request.method === 'GET' && { next: browserUrl(kit, request) }),
          }).toString();
          return reply.redirect(`${kit.root}/login${query ? `?${query}` : ''}`, 303);
        }
        attachSession(request, session);
        if (config?.consoleOperatorOnly && session.subject.role !== 'operator') return notFound(request, reply);
      });

      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const lang = languageOf(request, reply, kit);
        const t = CONSOLE_TEXTS[lang];
        let status: number;
        let title: string;
        let body: string;
        if (isGatewayError(error)) {
          status = httpStatusOf(error);
          title =
            status === 404 ? t.errors.notFoundTitle : status >= 500 ? t.errors.errorTitle : t.errors.badRequestTitle;
          body = status === 404 ? t.errors.notFoundBody : status >= 500 ? t.errors.errorBody : error.message;
        } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
          status = error.statusCode;
          title = t.errors.badRequestTitle;
          body = t.errors.badRequestBody;
        } else {
          status = 503;
          if (services.storeHealth.isUnavailable(error)) services.storeHealth.reportUnavailable();
          else {
            status = 500;
            request.log.error({ err: error }, 'console: unexpected error');
          }
          title = t.errors.errorTitle;
          body = t.errors.errorBody;
        }
        const session = maybeSessionOf(request);
        // A refused action on one payment (a refund over what is left, say) leads back to that payment.
        const payment =
          status < 500 && status !== 404 ? /^\/console\/payments\/([0-9a-f-]{36})\//.exec(request.url)?.[1] : undefined;
        const back = payment ? `${kit.root}/payments/${payment}` : `${kit.root}/payments`;
        return sendPage(
          kit,
          request,
          reply,
          {
            lang,
            title,
            body: messageBody(title, body, { href: back, label: t.errors.back }),
            langHref: back,
            ...(session && { session }),
          },
          status,
        );
      });

      const notFound = (request: FastifyRequest, reply: FastifyReply) => {
        const lang = languageOf(request, reply, kit);
        const t = CONSOLE_TEXTS[lang];
        const session = maybeSessionOf(request);
        return sendPage(
          kit,
          request,
          reply,
          {
            lang,
            title: t.errors.notFoundTitle,
            body: messageBody(t.errors.notFoundTitle, t.errors.notFoundBody, {
              href: `${kit.root}/payments`,
              label: t.errors.back,
            }),
            langHref: `${kit.root}/payments`,
            ...(session && { session }),
          },
          404,
        );
      };
      scope.setNotFoundHandler(notFound);

      scope.get('/', async (_request, reply) => reply.redirect(`${kit.root}/payments`, 303));
      registerLoginRoutes(scope, kit);
      registerPaymentRoutes(scope, kit);
      registerDeliveryRoutes(scope, kit);
      registerBalanceRoutes(scope, kit);
      registerMerchantRoutes(scope, kit);
      registerAuditRoutes(scope, kit);
    },
    { prefix: '/console' },
  );
}
