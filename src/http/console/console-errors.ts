// The console's own error and not-found pages (its scope's handlers): the same status table as
// the API (error-status.ts) in a page with the menu, never the API's JSON.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isGatewayError } from '../../domain/errors.ts';
import { httpStatusOf } from '../edge/error-status.ts';
import { languageOf, maybeSessionOf } from './console-kit.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { messageBody, sendPage } from './page-shell.ts';
import { CONSOLE_TEXTS, type ConsoleTexts } from './texts.ts';

type ErrorAnswer = { status: number; title: string; body: string };

function answerFor(
  deps: Pick<ConsoleDeps, 'storeHealth'>,
  error: FastifyError,
  request: FastifyRequest,
  t: ConsoleTexts,
): ErrorAnswer {
  if (isGatewayError(error)) {
    const status = httpStatusOf(error);
    if (status === 404) return { status, title: t.errors.notFoundTitle, body: t.errors.notFoundBody };
    if (status >= 500) return { status, title: t.errors.errorTitle, body: t.errors.errorBody };
    return { status, title: t.errors.badRequestTitle, body: error.message };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
    return { status: error.statusCode, title: t.errors.badRequestTitle, body: t.errors.badRequestBody };
  let status = 503;
  if (deps.storeHealth.isUnavailable(error)) deps.storeHealth.reportUnavailable();
  else {
    status = 500;
    request.log.error({ err: error }, 'console: unexpected error');
  }
  return { status, title: t.errors.errorTitle, body: t.errors.errorBody };
}

export function consoleErrorHandler(deps: ConsoleDeps) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const lang = languageOf(request, reply, deps);
    const t = CONSOLE_TEXTS[lang];
    const { status, title, body } = answerFor(deps, error, request, t);
    const session = maybeSessionOf(request);
    // A refused action on one payment (a refund over what is left, say) leads back to that payment.
    const payment =
      status < 500 && status !== 404 ? /^\/console\/payments\/([0-9a-f-]{36})\//.exec(request.url)?.[1] : undefined;
    const back = payment ? `${deps.root}/payments/${payment}` : `${deps.root}/payments`;
    return sendPage(
      deps,
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
  };
}

/** The same page for an unknown path and for one that is not yours (docs/console.md "Pages"). */
export function consoleNotFound(deps: ConsoleDeps) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const lang = languageOf(request, reply, deps);
    const t = CONSOLE_TEXTS[lang];
    const session = maybeSessionOf(request);
    return sendPage(
      deps,
      request,
      reply,
      {
        lang,
        title: t.errors.notFoundTitle,
        body: messageBody(t.errors.notFoundTitle, t.errors.notFoundBody, {
          href: `${deps.root}/payments`,
          label: t.errors.back,
        }),
        langHref: `${deps.root}/payments`,
        ...(session && { session }),
      },
      404,
    );
  };
}
