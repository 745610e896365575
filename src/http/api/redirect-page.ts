// The customer's side (contract §4):
//   GET  /transaction/Redirect?ID=…          the hosted page (payment, or the result once final)
//   GET  /transaction/Redirect/status?ID=…   a tiny JSON status for the page's polling
//   POST /transaction/Redirect/confirm       sandbox: confirm (outcome by the amount rule)
//   POST /transaction/Redirect/cancel        sandbox: cancel
// The ID in the URL is a bearer capability (≥ 128 random bits); the form posts are also
// CSRF-protected (see hosted-page/security.ts). Every answer is HTML except the status JSON.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isGatewayError } from '../../domain/errors.ts';
import type { CompletionCause, FailureTag } from '../../domain/lifecycle.ts';
import type { Services } from '../../app/services.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { sendPageMessage } from '../hosted-page/page-errors.ts';
import {
  bankName,
  formatAmount,
  formatDeadline,
  formatRemaining,
  maskAccount,
  pageFingerprint,
  qrPayloadFor,
} from '../hosted-page/page-view.ts';
import { cachedPage, RenderedPageCache, SLOT_MARKERS, type CachedPage } from '../hosted-page/page-cache.ts';
import { QrSvgCache } from '../hosted-page/qr-svg-cache.ts';
import { customerReturnUrl } from '../hosted-page/return-url.ts';
import {
  contentSecurityPolicy,
  csrfToken,
  csrfValid,
  ensureCsrfCookie,
  newNonce,
  originOf,
  setPageHeaders,
  setPageHeadersWithPolicy,
} from '../hosted-page/security.ts';
import { languageSwitch, paymentPage, resultPage } from '../hosted-page/templates.ts';
import { isPageLang, pickLang, TEXTS, type PageLang } from '../hosted-page/texts.ts';

/** Redirect ids are 32 base64url characters today; accept a sane range and nothing else. */
export const REDIRECT_ID = /^[A-Za-z0-9_-]{16,128}$/;
const POLL_MS = 3000;

type Query = Record<string, unknown>;

export function registerRedirectPageRoutes(app: FastifyInstance, services: Services): void {
  const { config } = services;
  // Links and form actions are absolute paths under PUBLIC_BASE_URL, so they stay right
  // behind a reverse proxy that mounts the gateway under a prefix.
  const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '');
  const pagePath = `${basePath}/transaction/Redirect`;
  const secureCookie = config.publicBaseUrl.startsWith('https:');
  const sandbox = config.mode === 'sandbox';
  const pageHref = (id: string, lang?: PageLang): string =>
    `${pagePath}?ID=${encodeURIComponent(id)}${lang ? `&lang=${lang}` : ''}`;
  // One per app: the QR of an open payment is rendered once per language, not per GET, and
  // the whole page once per (transaction, language, state); see hosted-page/page-cache.ts.
  const qrImages = new QrSvgCache();
  const pages = new RenderedPageCache();

  /** The transaction behind an ID, with a passed deadline recorded first (so the page never offers a dead QR). */
  async function load(id: unknown): Promise<TransactionRecord | undefined> {
    if (typeof id !== 'string' || !REDIRECT_ID.test(id)) return undefined;
    const found = await services.transactions.findByRedirectId(id);
    if (!found || found.status !== 'PROCESSING' || services.now() < found.expiresAt) return found;
    try {
      return await services.complete.execute(found.id, 'expire');
    } catch (error) {
      if (isGatewayError(error) && error.tag === 'INVALID_STATE') return services.transactions.findByRedirectId(id);
      throw error;
    }
  }

  async function merchantName(t: TransactionRecord): Promise<string> {
    return (
      (services.directory.get(t.merchantId) ?? (await services.merchants.findById(t.merchantId)))?.name ?? t.merchantId
    );
  }

  /** Bounded wait for the first delivery attempt of the result notification (RETURN_WAIT_FOR_NOTIFICATION). */
  async function waitForNotification(t: TransactionRecord, request: FastifyRequest): Promise<void> {
    const outcome = await services.notificationWaits.waitForFirstAttempt(t.id, config.returnWaitForNotificationMs);
    if (outcome === 'timed_out')
      request.log.info(
        { transactionId: t.id },
        'customer sent back before the first notification attempt finished (wait bound reached)',
      );
  }

  const langOf = (query: Query): PageLang | undefined => (isPageLang(query.lang) ? query.lang : undefined);

  /**
   * The page of `t` in `lang`, rendered with SLOT_MARKERS where the per-response values go
   * (nonce, CSRF token, countdown), so it can be cached and filled per response.
   */
  async function renderCacheable(t: TransactionRecord, lang: PageLang, name: string): Promise<CachedPage> {
    const slot = SLOT_MARKERS;
    const languageLinks = languageSwitch(lang, (l) => pageHref(t.redirectId, l));
    const amount = formatAmount(t.amountMinor, t.currency);
    if (t.status !== 'PROCESSING') {
      const body = resultPage({
        lang,
        nonce: slot.nonce,
        success: t.status === 'SUCCESS',
        reason: (t.errorCodeTag as FailureTag | null) ?? null,
        merchantName: name,
        amount,
        trackid: t.trackid,
        returnUrl: customerReturnUrl(t),
        languageLinks,
        refunded:
          t.refundedMinor > 0n
            ? { amount: formatAmount(t.refundedMinor, t.currency), full: t.refundedMinor >= t.amountMinor }
            : undefined,
        testMode: sandbox,
      });
      return cachedPage(body, contentSecurityPolicy(slot.nonce));
    }
    const qrSvg = await qrImages.svgFor(
      t.id,
      lang,
      qrPayloadFor(t, config.thaiQrBillerId, name),
      TEXTS[lang].qrLabel(amount, name),
    );
    const body = paymentPage({
      lang,
      nonce: slot.nonce,
      merchantName: name,
      amount,
      trackid: t.trackid,
      description: t.productdesc,
      bankName: bankName(t.payerBankCode, lang),
      maskedAccount: maskAccount(t.payerAccountNo),
      qrSvg,
      remainingMs: slot.remainingMs,
      remainingText: slot.remainingText,
      deadlineText: formatDeadline(t.expiresAt, lang),
      statusUrl: `${pagePath}/status?ID=${encodeURIComponent(t.redirectId)}`,
      qrPngUrl: `${pagePath}/qr.png?ID=${encodeURIComponent(t.redirectId)}`,
      testMode: sandbox,
      sandbox: sandbox
        ? {
            confirmAction: `${pagePath}/confirm`,
            cancelAction: `${pagePath}/cancel`,
            redirectId: t.redirectId,
            csrf: slot.csrf,
          }
        : undefined,
      languageLinks,
      pollMs: POLL_MS,
    });
    return cachedPage(
      body,
      contentSecurityPolicy(slot.nonce, [
        originOf(t.returnUrl),
        t.returnUrlOnFailure ? originOf(t.returnUrlOnFailure) : undefined,
      ]),
    );
  }

  app.get(
    '/transaction/Redirect',
    { config: { errorShape: 'page' } },
    async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
      const query = request.query;
      const t = await load(query.ID);
      if (!t) return sendPageMessage(reply, 404, 'notFound', langOf(query));
      const lang = pickLang(query.lang, t.lang);
      const name = await merchantName(t);
      // The row was just read: a cached page is used only if it was rendered from this same state.
      const fingerprint = pageFingerprint(t, name);
      let page = pages.get(t.id, lang, fingerprint);
      if (!page) {
        page = await renderCacheable(t, lang, name);
        pages.set(t.id, lang, fingerprint, page);
      }
      const nonce = newNonce();
      const remainingMs = t.expiresAt - services.now();
      // Only the open sandbox page has the confirm/cancel forms, and only it sets the CSRF cookie.
      const csrf = page.hasCsrfForm
        ? csrfToken(services.key, t.redirectId, ensureCsrfCookie(request, reply, secureCookie))
        : '';
      setPageHeadersWithPolicy(reply, page.cspParts.join(nonce));
      reply.type('text/html; charset=utf-8');
      return reply.send(
        page.body.fill({ nonce, csrf, remainingMs: String(remainingMs), remainingText: formatRemaining(remainingMs) }),
      );
    },
  );

  // Only the state and, once final, the way back: no amount, names or account data.
  app.get(
    '/transaction/Redirect/status',
    { config: { errorShape: 'page' } },
    async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
      setPageHeaders(reply, newNonce());
      const t = await load(request.query.ID);
      if (!t) return reply.code(404).send({ state: null, returnUrl: null });
      // The poll hands the customer back: first let the shop hear the result (bounded).
      if (t.status !== 'PROCESSING') await waitForNotification(t, request);
      return { state: t.status, returnUrl: t.status === 'PROCESSING' ? null : customerReturnUrl(t) };
    },
  );

  const finish =
    (cause: Extract<CompletionCause, 'confirm' | 'cancel'>) => async (request: FastifyRequest, reply: FastifyReply) => {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
      const lang = isPageLang(body.lang) ? body.lang : undefined;
      if (!sandbox) return sendPageMessage(reply, 404, 'notFound', lang); // live: the processor decides, not the page
      const t = await load(body.ID);
      if (!t) return sendPageMessage(reply, 404, 'notFound', lang);
      if (!csrfValid(services.key, request, t.redirectId, body.csrf)) {
        return sendPageMessage(reply, 403, 'forbidden', lang, pageHref(t.redirectId, lang));
      }
      setPageHeaders(reply, newNonce());
      if (t.status !== 'PROCESSING') return reply.redirect(pageHref(t.redirectId, lang), 303); // already final (or just expired): show the result
      try {
        const done = await services.complete.execute(t.id, cause);
        await waitForNotification(done, request);
        return reply.redirect(customerReturnUrl(done), 303);
      } catch (error) {
        // Lost a race with another completion (a double click, the sweeper): the page shows what won.
        if (isGatewayError(error) && error.tag === 'INVALID_STATE')
          return reply.redirect(pageHref(t.redirectId, lang), 303);
        throw error;
      }
    };

  app.post('/transaction/Redirect/confirm', { config: { errorShape: 'page' } }, finish('confirm'));
  app.post('/transaction/Redirect/cancel', { config: { errorShape: 'page' } }, finish('cancel'));
}
