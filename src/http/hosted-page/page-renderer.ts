// The hosted page of one payment, rendered for the cache (page-cache.ts): with SLOT_MARKERS where
// the per-response values go (nonce, CSRF token, countdown, the return link's signature), so it is rendered once per
// (transaction, language, state) and filled per response. The QR of an open payment is rendered
// once per language (qr-svg-cache.ts), not per GET. One renderer per app. With a processor that
// builds the QR (live mode, docs/connectors/kbank.md "What the customer sees"), the page shows
// the processor's QR verbatim and who issued it, and counts down to the earlier deadline.
import type { ShownQr } from '../../app/processor/payment-qr.ts';
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

/** What an open payment's page offers (ignored once the payment is final). */
export type OpenPage = { qr?: ShownQr | undefined; actions: { confirm: boolean; cancel: boolean } };

/** The page counts down to the earlier of the payment's deadline and its processor QR's. */
export function pageDeadline(
  t: Pick<TransactionRecord, 'expiresAt'>,
  qr: Pick<ShownQr, 'expiresAt'> | undefined,
): number {
  return qr ? Math.min(t.expiresAt, qr.expiresAt) : t.expiresAt;
}

export type PageRendererOptions = {
  paths: PagePaths;
  /** MODE=sandbox: the page says it is a test. */
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

  /**
   * The page of `t` as it stands, from the cache when it was rendered from this same state.
   * `open` is what an open payment's page offers: the processor's QR (else the gateway builds
   * one) and the forms the customer may post (HostedPage.actions).
   */
  async pageFor(t: TransactionRecord, lang: PageLang, merchantName: string, open: OpenPage): Promise<CachedPage> {
    const fingerprint = pageFingerprint(t, merchantName, open.qr);
    let page = this.#pages.get(t.id, lang, fingerprint);
    if (!page) {
      page =
        t.status === 'PROCESSING'
          ? await this.#payment(t, lang, merchantName, open)
          : this.#result(t, lang, merchantName);
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
      // Signed per response (its ts is the moment the page is shown): a hole here.
      returnUrl: customerReturnUrl(t, slot.returnSignature),
      languageLinks: this.#languageLinks(t, lang),
      refunded:
        t.refundedMinor > 0n
          ? { amount: formatAmount(t.refundedMinor, t.currency), full: t.refundedMinor >= t.amountMinor }
          : undefined,
      testMode: this.#options.sandbox,
    });
    return cachedPage(body, contentSecurityPolicy(slot.nonce));
  }

  /** An open payment: its QR, the countdown and the forms the customer may post. */
  async #payment(t: TransactionRecord, lang: PageLang, merchantName: string, open: OpenPage): Promise<CachedPage> {
    const { paths, sandbox, thaiQrBillerId } = this.#options;
    const slot = SLOT_MARKERS;
    const amount = formatAmount(t.amountMinor, t.currency);
    const payload = open.qr?.payload ?? qrPayloadFor(t, thaiQrBillerId, merchantName);
    const qrSvg = await this.#qrImages.svgFor(t.id, lang, payload, TEXTS[lang].qrLabel(amount, merchantName));
    const { confirm, cancel } = open.actions;
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
      deadlineText: formatDeadline(pageDeadline(t, open.qr), lang),
      statusUrl: paths.statusHref(t.redirectId),
      qrPngUrl: paths.qrPngHref(t.redirectId),
      testMode: sandbox,
      forms: cancel
        ? {
            confirmAction: confirm ? `${paths.page}/confirm` : undefined,
            cancelAction: `${paths.page}/cancel`,
            redirectId: t.redirectId,
            csrf: slot.csrf,
          }
        : undefined,
      issuer: open.qr ? { name: open.qr.issuer, accountName: open.qr.accountName } : undefined,
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
