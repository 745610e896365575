// The hosted page of one payment, rendered for the cache (page-cache.ts): with SLOT_MARKERS where
// the per-response values go (nonce, CSRF token, countdown), so it is rendered once per
// (transaction, language, state) and filled per response. The QR of an open payment is rendered
// once per language (qr-svg-cache.ts), not per GET. One renderer per app.
import type { FailureTag } from '../../domain/lifecycle.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { cachedPage, RenderedPageCache, SLOT_MARKERS, type CachedPage } from './page-cache.ts';
import type { PagePaths } from './page-paths.ts';
import { bankName, formatAmount, formatDeadline, maskAccount, pageFingerprint, qrPayloadFor } from './page-view.ts';
import { QrSvgCache } from './qr-svg-cache.ts';
import { customerReturnUrl } from './return-url.ts';
import { contentSecurityPolicy, originOf } from './security.ts';
import { languageSwitch, paymentPage, resultPage } from './templates.ts';
import { TEXTS, type PageLang } from './texts.ts';

const POLL_MS = 3000;

export type PageRendererOptions = {
  paths: PagePaths;
  /** MODE=sandbox: the page says so and offers the confirm and cancel forms. */
  sandbox: boolean;
  /** THAI_QR_BILLER_ID, inside every QR payload. */
  thaiQrBillerId: string;
};

export class PageRenderer {
  readonly #options: PageRendererOptions;
  readonly #qrImages = new QrSvgCache();
  readonly #pages = new RenderedPageCache();

  constructor(options: PageRendererOptions) {
    this.#options = options;
  }

  /** The page of `t` as it stands, from the cache when it was rendered from this same state. */
  async pageFor(t: TransactionRecord, lang: PageLang, merchantName: string): Promise<CachedPage> {
    const fingerprint = pageFingerprint(t, merchantName);
    let page = this.#pages.get(t.id, lang, fingerprint);
    if (!page) {
      page =
        t.status === 'PROCESSING' ? await this.#payment(t, lang, merchantName) : this.#result(t, lang, merchantName);
      this.#pages.set(t.id, lang, fingerprint, page);
    }
    return page;
  }

  /** A final payment: its result and the way back to the shop. */
  #result(t: TransactionRecord, lang: PageLang, merchantName: string): CachedPage {
    const slot = SLOT_MARKERS;
    const body = resultPage({
      lang,
      nonce: slot.nonce,
      success: t.status === 'SUCCESS',
      reason: (t.errorCodeTag as FailureTag | null) ?? null,
      merchantName,
      amount: formatAmount(t.amountMinor, t.currency),
      trackid: t.trackid,
      returnUrl: customerReturnUrl(t),
      languageLinks: this.#languageLinks(t, lang),
      refunded:
        t.refundedMinor > 0n
          ? { amount: formatAmount(t.refundedMinor, t.currency), full: t.refundedMinor >= t.amountMinor }
          : undefined,
      testMode: this.#options.sandbox,
    });
    return cachedPage(body, contentSecurityPolicy(slot.nonce));
  }

  /** An open payment: its QR, the countdown and, in the sandbox, the confirm and cancel forms. */
  async #payment(t: TransactionRecord, lang: PageLang, merchantName: string): Promise<CachedPage> {
    const { paths, sandbox, thaiQrBillerId } = this.#options;
    const slot = SLOT_MARKERS;
    const amount = formatAmount(t.amountMinor, t.currency);
    const payload = qrPayloadFor(t, thaiQrBillerId, merchantName);
    const qrSvg = await this.#qrImages.svgFor(t.id, lang, payload, TEXTS[lang].qrLabel(amount, merchantName));
    const body = paymentPage({
      lang,
      nonce: slot.nonce,
      merchantName,
      amount,
      trackid: t.trackid,
      description: t.productdesc,
      bankName: bankName(t.payerBankCode, lang),
      maskedAccount: maskAccount(t.payerAccountNo),
      qrSvg,
      remainingMs: slot.remainingMs,
      remainingText: slot.remainingText,
      deadlineText: formatDeadline(t.expiresAt, lang),
      statusUrl: paths.statusHref(t.redirectId),
      qrPngUrl: paths.qrPngHref(t.redirectId),
      testMode: sandbox,
      sandbox: sandbox
        ? {
            confirmAction: `${paths.page}/confirm`,
            cancelAction: `${paths.page}/cancel`,
            redirectId: t.redirectId,
            csrf: slot.csrf,
          }
        : undefined,
      languageLinks: this.#languageLinks(t, lang),
      pollMs: POLL_MS,
    });
    // The customer is sent back to either return URL: the form posts may go to both origins.
    const returnOrigins = [originOf(t.returnUrl), t.returnUrlOnFailure ? originOf(t.returnUrlOnFailure) : undefined];
    return cachedPage(body, contentSecurityPolicy(slot.nonce, returnOrigins));
  }

  #languageLinks(t: TransactionRecord, lang: PageLang) {
    return languageSwitch(lang, (l) => this.#options.paths.pageHref(t.redirectId, l));
  }
}
