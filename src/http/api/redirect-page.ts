// The customer's side (docs/hosted-page.md, "Routes"):
//   GET  /transaction/Redirect?ID=…          the hosted page (payment, or the result once final)
//   GET  /transaction/Redirect/status?ID=…   a tiny JSON status for the page's polling
//   POST /transaction/Redirect/confirm       sandbox: confirm (outcome by the amount rule)
//   POST /transaction/Redirect/cancel        sandbox, and under a bank's QR: cancel (at the bank first)
// With a processor that builds the QR (live mode), the first view creates it at the processor
// (app/processor/payment-qr.ts); when it cannot, a 503 page in Thai and English offers a retry.
// The ID in the URL is a bearer capability (a 128-bit MAC: domain/keyed-ids.ts); the form posts are also
// CSRF-protected (see hosted-page/security.ts). Every answer is HTML except the status JSON.
// The payment is loaded, and expired if its deadline passed, by the HostedPage use case.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HostedPage } from '../../app/hosted-page.ts';
import type { SecretKey } from '../../domain/credentials.ts';
import type { CompletionCause } from '../../domain/lifecycle.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../domain/processor-errors.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { sendPageMessage } from '../hosted-page/page-errors.ts';
import { PagePaths, redirectIdOf } from '../hosted-page/page-paths.ts';
import { pageDeadline, PageRenderer, type OpenPage } from '../hosted-page/page-renderer.ts';
import { formatRemaining } from '../hosted-page/page-view.ts';
import { escapeHtml } from '../hosted-page/html.ts';
import { customerReturnUrl, signedTail } from '../hosted-page/return-url.ts';
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
  page: Pick<
    HostedPage,
    | 'loadPaymentPage'
    | 'merchantName'
    | 'finish'
    | 'waitForNotification'
    | 'actions'
    | 'processorQr'
    | 'processorQrFor'
    | 'returnSignature'
  >;
  /** Binds the CSRF tokens of the page's forms to the redirect id and the browser's cookie. */
  key: SecretKey;
  now: () => number;
  publicBaseUrl: string;
  /** MODE=sandbox: the page says it is a test; Confirm only then (HostedPage.actions). */
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
  let t = await load(routes, query.ID);
  if (!t) return sendPageMessage(reply, 404, 'notFound', langOf(query.lang));
  const lang = pickLang(query.lang, t.lang);
  const open: OpenPage = { actions: routes.page.actions(routes.sandbox) };
  if (t.status === 'PROCESSING' && routes.page.processorQr) {
    try {
      open.qr = await routes.page.processorQrFor(t);
    } catch (error) {
      // The bank could not make the QR now: a page that says so, with a retry; the payment stays open.
      if (error instanceof ProcessorUnavailable || error instanceof ProcessorMismatch) {
        return bankUnavailable(routes, request, reply, t, lang, error);
      }
      throw error;
    }
    // Found paid (or ended) while asking: the page shows what the payment is now.
    if (!open.qr) t = (await load(routes, query.ID)) ?? t;
  }
  // The row was just read: a cached page is used only if it was rendered from this same state.
  const page = await routes.renderer.pageFor(t, lang, await routes.page.merchantName(t), open);
  const nonce = newNonce();
  const remainingMs = pageDeadline(t, open.qr) - routes.now();
  // Only an open page with forms (sandbox, or Cancel under a bank's QR) sets the CSRF cookie.
  const csrf = page.hasCsrfForm
    ? csrfToken(routes.key, t.redirectId, ensureCsrfCookie(request, reply, routes.secureCookie))
    : '';
  // A result page's Return link is signed as of this response, not as of its rendering.
  const returnSignature = t.status === 'PROCESSING' ? '' : escapeHtml(await signedReturn(routes, t));
  setPageHeadersWithPolicy(reply, page.cspParts.join(nonce));
  reply.type('text/html; charset=utf-8');
  return reply.send(
    page.body.fill({
      nonce,
      csrf,
      remainingMs: String(remainingMs),
      remainingText: formatRemaining(remainingMs),
      returnSignature,
    }),
  );
}

/** `&ts=…&signature=…` for the way back, signed now (docs/hosted-page.md "Back to the merchant"). */
async function signedReturn(routes: Routes, t: TransactionRecord): Promise<string> {
  return signedTail(await routes.page.returnSignature(t));
}

/** 503 in Thai and English with a retry link to the same page; logged for the operator, never shown. */
function bankUnavailable(
  routes: Routes,
  request: FastifyRequest,
  reply: FastifyReply,
  t: TransactionRecord,
  lang: PageLang,
  error: unknown,
): FastifyReply {
  request.log.warn(
    { transactionId: t.id, reason: error instanceof Error ? error.message : String(error) },
    'the processor could not give this payment a QR now; the payment stays open',
  );
  reply.header('retry-after', '5');
  return sendPageMessage(reply, 503, 'bankUnavailable', lang, routes.paths.pageHref(t.redirectId, lang));
}

/** Only the state and, once final, the way back: no amount, names or account data. */
async function pollStatus(routes: Routes, request: QueryRequest, reply: FastifyReply) {
  setPageHeaders(reply, newNonce());
  const t = await load(routes, request.query.ID);
  if (!t) return reply.code(404).send({ state: null, returnUrl: null });
  // The poll hands the customer back: first let the shop hear the result (bounded).
  if (t.status !== 'PROCESSING') await waitForNotification(routes, t, request);
  if (t.status === 'PROCESSING') return { state: t.status, returnUrl: null };
  return { state: t.status, returnUrl: customerReturnUrl(t, await signedReturn(routes, t)) };
}

async function finish(
  routes: Routes,
  cause: Extract<CompletionCause, 'confirm' | 'cancel'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const lang = langOf(body.lang);
  // Confirm only on the sandbox's own QR; Cancel also under a bank's QR (HostedPage.actions).
  if (!routes.page.actions(routes.sandbox)[cause]) return sendPageMessage(reply, 404, 'notFound', lang);
  const t = await load(routes, body.ID);
  if (!t) return sendPageMessage(reply, 404, 'notFound', lang);
  const pageHref = routes.paths.pageHref(t.redirectId, lang);
  if (!csrfValid(routes.key, request, t.redirectId, body.csrf)) {
    return sendPageMessage(reply, 403, 'forbidden', lang, pageHref);
  }
  setPageHeaders(reply, newNonce());
  // Already final (or just expired): show the result.
  if (t.status !== 'PROCESSING') return reply.redirect(pageHref, 303);
  let done;
  try {
    done = await routes.page.finish(t, cause);
  } catch (error) {
    // The bank could not be asked to close its QR: nothing changed, the customer may try again.
    if (error instanceof ProcessorUnavailable) {
      return bankUnavailable(routes, request, reply, t, lang ?? pickLang(undefined, t.lang), error);
    }
    throw error;
  }
  // Lost a race with another completion (a double click, the sweeper), or the customer paid
  // before cancelling (it ends SUCCESS): the page shows what won.
  if (!done) return reply.redirect(pageHref, 303);
  await waitForNotification(routes, done, request);
  // Signed after the wait, so the ts is as close as possible to the customer's arrival.
  return reply.redirect(customerReturnUrl(done, await signedReturn(routes, done)), 303);
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
