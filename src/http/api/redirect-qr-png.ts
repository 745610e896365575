// GET /transaction/Redirect/qr.png?ID=… — "Save QR" on the hosted page: the open payment's QR
// as a PNG download. 404 once the payment is final or past its deadline (a saved QR of a dead
// payment would only fail in the banking app) and for unknown IDs. Rendered once per
// transaction (QrImageCache, like the page's SVG). In live mode it is the processor's QR, the
// one the page shows (a processor that cannot give one now: the 503 of the page's error table).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostedPage } from '../../app/hosted-page.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { sendPageMessage } from '../hosted-page/page-errors.ts';
import { redirectIdOf } from '../hosted-page/page-paths.ts';
import { qrPayloadFor } from '../hosted-page/page-view.ts';
import { renderQrPng } from '../hosted-page/qr-png.ts';
import { DEFAULT_QR_CACHE_ENTRIES, QrImageCache } from '../hosted-page/qr-svg-cache.ts';
import { newNonce, setPageHeaders } from '../hosted-page/security.ts';
import { isPageLang } from '../hosted-page/texts.ts';

export const QR_PNG_FILENAME = 'thai-qr-payment.png';

export type RedirectQrPngDeps = {
  page: Pick<HostedPage, 'openPayment' | 'merchantName' | 'processorQr' | 'processorQrFor'>;
  /** THAI_QR_BILLER_ID, inside every QR payload. */
  thaiQrBillerId: string;
};

export function registerRedirectQrPngRoute(app: FastifyInstance, deps: RedirectQrPngDeps): void {
  // Fewer entries than the SVG cache: a PNG is ~10 KB and only fetched on a click.
  const images = new QrImageCache<Buffer>(Math.ceil(DEFAULT_QR_CACHE_ENTRIES / 4), (payload) => renderQrPng(payload));

  app.get(
    '/transaction/Redirect/qr.png',
    { config: { errorShape: 'page' } },
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply) => {
      const { ID: id, lang } = request.query;
      const redirectId = redirectIdOf(id);
      const t = redirectId === undefined ? undefined : await deps.page.openPayment(redirectId);
      if (!t) return sendPageMessage(reply, 404, 'notFound', isPageLang(lang) ? lang : undefined);
      const payload = await payloadOf(deps, t);
      if (payload === undefined) return sendPageMessage(reply, 404, 'notFound', isPageLang(lang) ? lang : undefined);
      const png = await images.imageFor(t.id, 'png', payload, '');
      setPageHeaders(reply, newNonce());
      return reply
        .header('content-disposition', `attachment; filename="${QR_PNG_FILENAME}"`)
        .header('cross-origin-resource-policy', 'same-origin')
        .type('image/png')
        .send(png);
    },
  );
}

/** The QR the page shows: the processor's (undefined once found paid), or the gateway's own. */
async function payloadOf(deps: RedirectQrPngDeps, t: TransactionRecord): Promise<string | undefined> {
  if (deps.page.processorQr) return (await deps.page.processorQrFor(t))?.payload;
  return qrPayloadFor(t, deps.thaiQrBillerId, await deps.page.merchantName(t));
}
