// The customer's side (docs/hosted-page.md, "Routes"):
//   GET  /transaction/Redirect?ID=…          the hosted page (payment, or the result once final)
//   GET  /transaction/Redirect/status?ID=…   a tiny JSON status for the page's polling
//   POST /transaction/Redirect/confirm       sandbox: confirm (outcome by the amount rule)
//   POST /transaction/Redirect/cancel        sandbox: cancel
// The ID in the URL is a bearer capability (≥ 128 random bits); the form posts are also
// CSRF-protected (see hosted-page/security.ts). Every answer is HTML except the status JSON.
// The payment is loaded, and expired if its deadline passed, by the HostedPage use case.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HostedPage } from '../../app/hosted-page.ts';
import type { SecretKey } from '../../domain/credentials.ts';
import type { CompletionCause } from '../../domain/lifecycle.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { sendPageMessage } from '../hosted-page/page-errors.ts';
import { PagePaths, redirectIdOf } from '../hosted-page/page-paths.ts';
import { PageRenderer } from '../hosted-page/page-renderer.ts';
import { formatRemaining } from '../hosted-page/page-view.ts';
import { customerReturnUrl } from '../hosted-page/return-url.ts';
import {
  csrfToken,
  csrfValid,
  ensureCsrfCookie,
  newNonce,
  setPageHeaders,
  setPageHeadersWithPolicy,
} from '../hosted-page/security.ts';
import { isPageLang, pickLang, type PageLang } from '../hosted-page/texts.ts';

export type RedirectPageDeps = {
  page: Pick<HostedPage, 'loadPaymentPage' | 'merchantName' | 'finish' | 'waitForNotification'>;
  /** Binds the CSRF tokens of the sandbox forms to the redirect id and the browser's cookie. */
  key: SecretKey;
  now: () => number;
  publicBaseUrl: string;
  /** MODE=sandbox: only then can the customer confirm or cancel on the page. */
  sandbox: boolean;
  thaiQrBillerId: string;
};

type Query = Record<string, unknown>;
type QueryRequest = FastifyRequest<{ Querystring: Query }>;
type Routes = RedirectPageDeps & { paths: PagePaths; renderer: PageRenderer; secureCookie: boolean };

export function registerRedirectPageRoutes(app: FastifyInstance, deps: RedirectPageDeps): void {
  const paths = new PagePaths(deps.publicBaseUrl);
  const routes: Routes = {
    ...deps,
    paths,
    // One per app: pages and QR images are cached across requests (hosted-page/page-cache.ts).
    renderer: new PageRenderer({ paths, sandbox: deps.sandbox, thaiQrBillerId: deps.thaiQrBillerId }),
    secureCookie: deps.publicBaseUrl.startsWith('https:'),
  };
  const config = { errorShape: 'page' as const };
  app.get('/transaction/Redirect', { config }, (request: QueryRequest, reply) => showPage(routes, request, reply));
  app.get('/transaction/Redirect/status', { config }, (request: QueryRequest, reply) =>
    pollStatus(routes, request, reply),
  );
  app.post('/transaction/Redirect/confirm', { config }, (request, reply) => finish(routes, 'confirm', request, reply));
  app.post('/transaction/Redirect/cancel', { config }, (request, reply) => finish(routes, 'cancel', request, reply));
}

const langOf = (value: unknown): PageLang | undefined => (isPageLang(value) ? value : undefined);

/** The payment behind an ID from the request, or undefined for one that cannot exist. */
async function load(routes: Routes, id: unknown): Promise<TransactionRecord | undefined> {
  const redirectId = redirectIdOf(id);
  return redirectId === undefined ? undefined : routes.page.loadPaymentPage(redirectId);
}

async function showPage(routes: Routes, request: QueryRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query;
  const t = await load(routes, query.ID);
  if (!t) return sendPageMessage(reply, 404, 'notFound', langOf(query.lang));
  const lang = pickLang(query.lang, t.lang);
  // The row was just read: a cached page is used only if it was rendered from this same state.
  const page = await routes.renderer.pageFor(t, lang, await routes.page.merchantName(t));
  const nonce = newNonce();
  const remainingMs = t.expiresAt - routes.now();
  // Only the open sandbox page has the confirm/cancel forms, and only it sets the CSRF cookie.
  const csrf = page.hasCsrfForm
    ? csrfToken(routes.key, t.redirectId, ensureCsrfCookie(request, reply, routes.secureCookie))
    : '';
  setPageHeadersWithPolicy(reply, page.cspParts.join(nonce));
  reply.type('text/html; charset=utf-8');
  return reply.send(
    page.body.fill({ nonce, csrf, remainingMs: String(remainingMs), remainingText: formatRemaining(remainingMs) }),
  );
}

/** Only the state and, once final, the way back: no amount, names or account data. */
async function pollStatus(routes: Routes, request: QueryRequest, reply: FastifyReply) {
  setPageHeaders(reply, newNonce());
  const t = await load(routes, request.query.ID);
  if (!t) return reply.code(404).send({ state: null, returnUrl: null });
  // The poll hands the customer back: first let the shop hear the result (bounded).
  if (t.status !== 'PROCESSING') await waitForNotification(routes, t, request);
  return { state: t.status, returnUrl: t.status === 'PROCESSING' ? null : customerReturnUrl(t) };
}

async function finish(
  routes: Routes,
  cause: Extract<CompletionCause, 'confirm' | 'cancel'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const lang = langOf(body.lang);
  // Live: the processor decides, not the page.
  if (!routes.sandbox) return sendPageMessage(reply, 404, 'notFound', lang);
  const t = await load(routes, body.ID);
  if (!t) return sendPageMessage(reply, 404, 'notFound', lang);
  const pageHref = routes.paths.pageHref(t.redirectId, lang);
  if (!csrfValid(routes.key, request, t.redirectId, body.csrf)) {
    return sendPageMessage(reply, 403, 'forbidden', lang, pageHref);
  }
  setPageHeaders(reply, newNonce());
  // Already final (or just expired): show the result.
  if (t.status !== 'PROCESSING') return reply.redirect(pageHref, 303);
  const done = await routes.page.finish(t, cause);
  // Lost a race with another completion (a double click, the sweeper): the page shows what won.
  if (!done) return reply.redirect(pageHref, 303);
  await waitForNotification(routes, done, request);
  return reply.redirect(customerReturnUrl(done), 303);
}

/** Bounded wait for the first delivery attempt of the result notification (RETURN_WAIT_FOR_NOTIFICATION). */
async function waitForNotification(routes: Routes, t: TransactionRecord, request: FastifyRequest): Promise<void> {
  const outcome = await routes.page.waitForNotification(t);
  if (outcome === 'timed_out')
    request.log.info(
      { transactionId: t.id },
      'customer sent back before the first notification attempt finished (wait bound reached)',
    );
}
