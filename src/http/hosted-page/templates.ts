// Server-rendered HTML of the hosted page: the payment page, the result page and the
// message pages (404, 403, errors). Every value goes through the escaping `html` tag.
import { html, raw, type SafeHtml } from './html.ts';
import { PAGE_SCRIPT } from './client-script.ts';
import { PAGE_CSS } from './styles.ts';
import { TEXTS, type PageLang } from './texts.ts';

export type PageFrame = {
  lang: PageLang;
  nonce: string;
  title: string;
  languageLinks?: SafeHtml | undefined;
  script?: boolean;
  testMode?: boolean | undefined;
};

function layout(frame: PageFrame, main: SafeHtml): string {
  const t = TEXTS[frame.lang];
  return (
    '<!doctype html>\n' +
    html`<html lang="${frame.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<link rel="icon" href="data:,">
<title>${frame.testMode ? `[TEST] ${frame.title}` : frame.title}</title>
<style nonce="${frame.nonce}">${raw(PAGE_CSS)}</style>
</head>
<body>
<a class="skip" href="#main">${frame.lang === 'th' ? 'ข้ามไปยังเนื้อหา' : 'Skip to content'}</a>
<div class="wrap">
<header class="top">
<span class="brand"><span class="brand-mark" aria-hidden="true">QR</span>Thai QR Payment</span>
${frame.languageLinks ?? ''}
</header>
${frame.testMode ? html`<p class="test-banner" id="test-banner" role="note">${t.testBanner}</p>` : ''}
<main id="main">${main}</main>
<p class="footer">${t.securedBy}</p>
</div>
${frame.script ? html`<script nonce="${frame.nonce}">${raw(PAGE_SCRIPT)}</script>` : ''}
</body>
</html>
`.value
  );
}

/** A link to the other language (`?ID=…&lang=xx`), announced as a language switch. */
export function languageSwitch(lang: PageLang, hrefFor: (lang: PageLang) => string): SafeHtml {
  const other: PageLang = lang === 'th' ? 'en' : 'th';
  return html`<nav class="lang" aria-label="${TEXTS[lang].languageNav}"><a href="${hrefFor(other)}" hreflang="${other}" lang="${other}">${TEXTS[lang].switchTo}</a></nav>`;
}

export type PageForms = { confirmAction?: string | undefined; cancelAction: string; redirectId: string; csrf: string };

export type PaymentPageModel = {
  lang: PageLang;
  nonce: string;
  merchantName: string;
  amount: string;
  trackid: string;
  description: string | null;
  bankName: string;
  maskedAccount: string;
  qrSvg: string;
  /** Milliseconds left (a string when rendered for the page cache: a slot marker). */
  remainingMs: number | string;
  remainingText: string;
  deadlineText: string;
  statusUrl: string;
  /**
   * The customer's forms, when the page has any: Confirm and Cancel in the sandbox's test panel,
   * or Cancel alone under a bank's QR (HostedPage.actions).
   */
  forms?: PageForms | undefined;
  /** Live mode: who issued the QR shown (the processor) and the account it pays into. */
  issuer?: { name: string; accountName: string | null } | undefined;
  languageLinks: SafeHtml;
  pollMs: number;
  /** The PNG download of the same QR ("Save QR"). */
  qrPngUrl?: string | undefined;
  /** Sandbox: the page says it is a test. */
  testMode?: boolean | undefined;
};

function detailsList(m: {
  lang: PageLang;
  trackid: string;
  description?: string | null;
  bankName?: string;
  maskedAccount?: string;
}): SafeHtml {
  const t = TEXTS[m.lang];
  return html`<dl>
<dt>${t.reference}</dt><dd class="mono">${m.trackid}</dd>
${m.bankName ? html`<dt>${t.bank}</dt><dd>${m.bankName}</dd>` : ''}
${m.maskedAccount ? html`<dt>${t.account}</dt><dd class="mono" aria-label="${m.lang === 'th' ? 'บัญชีลงท้ายด้วย' : 'Account ending in'} ${m.maskedAccount.slice(-4)}">${m.maskedAccount}</dd>` : ''}
</dl>`;
}

/** One form of the page: the redirect id, the CSRF token and the language go with it. */
function pageForm(m: { lang: PageLang; forms: PageForms }, action: string, button: SafeHtml): SafeHtml {
  return html`<form method="post" action="${action}" data-once>
<input type="hidden" name="ID" value="${m.forms.redirectId}">
<input type="hidden" name="csrf" value="${m.forms.csrf}">
<input type="hidden" name="lang" value="${m.lang}">
${button}
</form>`;
}

/** The sandbox's test panel (Confirm and Cancel), or Cancel alone under a bank's QR. */
function actionsSection(m: { lang: PageLang; forms?: PageForms | undefined }): SafeHtml | '' {
  const t = TEXTS[m.lang];
  const forms = m.forms;
  if (!forms) return '';
  const cancel = pageForm(
    { lang: m.lang, forms },
    forms.cancelAction,
    html`<button type="submit" class="btn btn-secondary" id="cancel">${t.cancel}</button>`,
  );
  if (!forms.confirmAction) return html`<div class="actions customer-actions">${cancel}</div>`;
  const confirm = pageForm(
    { lang: m.lang, forms },
    forms.confirmAction,
    html`<button type="submit" class="btn btn-primary" id="confirm">${t.confirm}</button>`,
  );
  return html`<section class="sandbox" aria-labelledby="sandbox-title">
<h2 id="sandbox-title">${t.sandboxTitle}</h2>
<p>${t.sandboxHint}</p>
<div class="actions">
${confirm}
${cancel}
</div>
</section>`;
}

/** Live mode: the bank that issued the QR, the account it pays into, and that any banking app pays it. */
function issuerLines(lang: PageLang, issuer: PaymentPageModel['issuer']): SafeHtml | '' {
  if (!issuer) return '';
  const t = TEXTS[lang];
  return html`<p class="issuer" id="issuer">${t.issuedBy(issuer.name)}. ${t.anyBankApp}</p>
${issuer.accountName ? html`<p class="hint" id="payee">${t.payeeAccount}: ${issuer.accountName}</p>` : ''}`;
}

export function paymentPage(m: PaymentPageModel): string {
  const t = TEXTS[m.lang];
  // Without Confirm the processor decides: the page says it waits and polls.
  const waits = !m.forms?.confirmAction;
  const main = html`<div class="card pay" id="payment" data-status-url="${m.statusUrl}" data-remaining-ms="${m.remainingMs}" data-poll-ms="${m.pollMs}" data-expired-text="${t.expiredNow}" data-redirecting-text="${t.redirecting}" data-return-text="${t.returnToMerchant}">
<section class="summary" aria-labelledby="merchant-name">
<div>
<p class="label">${t.payTo}</p>
<h1 class="merchant" id="merchant-name">${m.merchantName}</h1>
</div>
<div>
<p class="label" id="amount-label">${t.amountLabel}</p>
<p class="amount" id="amount">${m.amount}</p>
${m.description ? html`<p class="desc">${m.description}</p>` : ''}
</div>
</section>
<section class="qr-panel" aria-labelledby="scan-title">
<h2 id="scan-title">${t.scanTitle}</h2>
<p class="hint">${t.scanHint}</p>
<div class="qr-frame"><div class="qr-head" aria-hidden="true">THAI QR PAYMENT</div><div class="qr" id="qr">${raw(m.qrSvg)}</div></div>
${issuerLines(m.lang, m.issuer)}
<p class="timer" id="timer" role="timer" aria-live="off">${t.expiresIn} <strong id="countdown">${m.remainingText}</strong></p>
<span class="deadline" id="deadline">${t.expiresAt(m.deadlineText)}</span>
${
  m.qrPngUrl
    ? html`<a class="btn btn-secondary save-qr" id="save-qr" href="${m.qrPngUrl}" download>${t.saveQr}</a>
<p class="hint same-device" id="same-device">${t.sameDeviceHint}</p>`
    : ''
}
</section>
<section class="details" aria-labelledby="details-title">
<h2 id="details-title">${t.details}</h2>
${detailsList({ lang: m.lang, trackid: m.trackid, bankName: m.bankName, maskedAccount: m.maskedAccount })}
</section>
<p class="status" id="live-status" role="status" aria-live="polite">${waits ? t.waiting : ''}</p>
${waits ? html`<p class="status"><a href="">${t.checkStatus}</a></p>` : ''}
${actionsSection(m)}
</div>`;
  return layout(
    {
      lang: m.lang,
      nonce: m.nonce,
      title: `${t.htmlTitle} · ${m.merchantName}`,
      languageLinks: m.languageLinks,
      script: true,
      testMode: m.testMode,
    },
    main,
  );
}

export type ResultPageModel = {
  lang: PageLang;
  nonce: string;
  success: boolean;
  reason: keyof (typeof TEXTS)['en']['resultReason'] | null;
  merchantName: string;
  amount: string;
  trackid: string;
  returnUrl: string;
  languageLinks: SafeHtml;
  /** Formatted total refunded, when the (successful) payment was refunded; `full` when nothing is left. */
  refunded?: { amount: string; full: boolean } | undefined;
  /** Sandbox: the page says it is a test. */
  testMode?: boolean | undefined;
};

export function resultPage(m: ResultPageModel): string {
  const t = TEXTS[m.lang];
  const refunded = m.success ? m.refunded : undefined;
  const title = refunded ? t.resultRefundedTitle : m.success ? t.resultSuccessTitle : t.resultFailedTitle;
  const text = refunded
    ? refunded.full
      ? t.refundedFull(m.amount)
      : t.refundedPartial(refunded.amount, m.amount)
    : m.success
      ? t.resultSuccessBody
      : t.resultReason[m.reason ?? 'OTHER'];
  const main = html`<div class="card narrow"><section class="result" aria-labelledby="result-title">
<span class="result-icon ${m.success ? 'ok' : 'fail'}" aria-hidden="true">${refunded ? '↩' : m.success ? '✓' : '✕'}</span>
<h1 id="result-title">${title}</h1>
<p id="result-text">${text}</p>
<dl>
<dt>${t.payTo}</dt><dd>${m.merchantName}</dd>
<dt>${t.amountLabel}</dt><dd id="amount">${m.amount}</dd>
${refunded ? html`<dt>${t.refundedLabel}</dt><dd id="refunded">${refunded.amount}</dd>` : ''}
<dt>${t.reference}</dt><dd class="mono">${m.trackid}</dd>
</dl>
<a class="btn btn-primary" id="return" href="${m.returnUrl}">${t.returnToMerchant}</a>
</section></div>`;
  return layout(
    {
      lang: m.lang,
      nonce: m.nonce,
      title: `${title} · ${m.merchantName}`,
      languageLinks: m.languageLinks,
      testMode: m.testMode,
    },
    main,
  );
}

export type MessageKind = 'notFound' | 'forbidden' | 'error' | 'bankUnavailable';

function messageTexts(kind: MessageKind, l: PageLang): [title: string, body: string, back: string] {
  const t = TEXTS[l];
  switch (kind) {
    case 'notFound':
      return [t.notFoundTitle, t.notFoundBody, t.backToPayment];
    case 'forbidden':
      return [t.forbiddenTitle, t.forbiddenBody, t.backToPayment];
    case 'bankUnavailable':
      return [t.bankUnavailableTitle, t.bankUnavailableBody, t.tryAgain];
    case 'error':
      return [t.errorTitle, t.errorBody, t.backToPayment];
  }
}

/**
 * 404/403/5xx pages: short, bilingual when the language is unknown, never any internals. The
 * bank's QR not ready is always in Thai and English (the customer may not have picked a language).
 */
export function messagePage(kind: MessageKind, nonce: string, lang: PageLang | undefined, backHref?: string): string {
  const primary = lang ?? 'th';
  const langs: PageLang[] = lang && kind !== 'bankUnavailable' ? [lang] : [primary, primary === 'th' ? 'en' : 'th'];
  const block = (l: PageLang): SafeHtml => {
    const [title, body, back] = messageTexts(kind, l);
    return html`<section class="message" lang="${l}"><h1>${title}</h1><p>${body}</p>${backHref ? html`<p><a class="btn btn-secondary" href="${backHref}">${back}</a></p>` : ''}</section>`;
  };
  return layout(
    { lang: primary, nonce, title: messageTexts(kind, primary)[0] },
    html`<div class="card narrow">${langs.map(block)}</div>`,
  );
}
