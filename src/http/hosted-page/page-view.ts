// What the hosted page shows about a transaction, derived once so the templates only lay
// it out. Only the masked account is shown of the payer's data (no name, e-mail or IP).
import { bankByCode } from '../../domain/thai-banks.ts';
import { buildThaiQrPayload, thaiQrReferenceFor } from '../../domain/thai-qr.ts';
import { currencyExponent, formatMinor, groupThousands } from '../../domain/money.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { PageLang } from './texts.ts';

const CURRENCY_SYMBOL: Record<string, string> = { THB: '฿' };

/** `฿1,000.00` — exact, from minor units, never through a float. */
export function formatAmount(amountMinor: bigint, currency: string): string {
  const text = groupThousands(formatMinor(amountMinor, currencyExponent(currency)));
  const symbol = CURRENCY_SYMBOL[currency];
  return symbol ? `${symbol}${text}` : `${currency} ${text}`;
}

/** `•••• 9012`: the last four digits only. */
export function maskAccount(accountNo: string): string {
  return `•••• ${accountNo.slice(-4)}`;
}

export function bankName(code: string, lang: PageLang): string {
  const bank = bankByCode(code);
  if (!bank) return code;
  return lang === 'th' ? bank.nameTh : bank.nameEn;
}

/** mm:ss (or h:mm:ss) of the time left, never negative. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

// Building an Intl.DateTimeFormat costs ~200 µs (locale data lookup); formatting with one is
// cheap. One formatter per page language, built on first use and reused for every request.
const deadlineFormatters = new Map<PageLang, Intl.DateTimeFormat>();

function deadlineFormatter(lang: PageLang): Intl.DateTimeFormat {
  let formatter = deadlineFormatters.get(lang);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', {
      timeZone: 'Asia/Bangkok',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    deadlineFormatters.set(lang, formatter);
  }
  return formatter;
}

/**
 * Date and clock time of the deadline in Thailand's time zone, named, for readers without
 * JavaScript and for a customer paying later from a saved QR: "23 Nov 2026, 22:45 ICT",
 * "23 พ.ย. 2569 22:45 น. (ICT)" (Thai dates use the Buddhist era). Intl names the zone only
 * "GMT+7", so the abbreviation is added here; Asia/Bangkok has no daylight saving time.
 */
export function formatDeadline(at: number, lang: PageLang): string {
  const parts: Record<string, string> = {};
  for (const part of deadlineFormatter(lang).formatToParts(new Date(at))) parts[part.type] = part.value;
  const { day, month, year, hour, minute } = parts;
  return lang === 'th'
    ? `${day} ${month} ${year} ${hour}:${minute} น. (ICT)`
    : `${day} ${month} ${year}, ${hour}:${minute} ICT`;
}

/**
 * What can change about a transaction after initiation and shows on its page: its state and
 * result, refunds, and the merchant's (current) name. Everything else on the page (amount,
 * trackid, description, payer bank and account, deadline, return URLs, ids) is written once at
 * initiation, except a processor's QR, which a new attempt replaces. A cached page is reused only
 * while this is unchanged (see page-cache.ts).
 */
export function pageFingerprint(
  t: Pick<TransactionRecord, 'status' | 'errorCodeTag' | 'errorText' | 'refundedMinor' | 'completedAt'>,
  merchantName: string,
  processorQr?: { payload: string; expiresAt: number; accountName: string | null },
): string {
  // A processor's QR replaced by a new attempt (the old one expired or was never answered) is a new page.
  const qr = processorQr ? [processorQr.payload, processorQr.expiresAt, processorQr.accountName] : null;
  return JSON.stringify([
    t.status,
    t.errorCodeTag,
    t.errorText,
    String(t.refundedMinor),
    t.completedAt,
    merchantName,
    qr,
  ]);
}

/** The EMVCo Thai QR payload: bill payment (tag 30) with the transaction as reference 1. */
export function qrPayloadFor(
  t: Pick<TransactionRecord, 'id' | 'amountMinor'>,
  billerId: string,
  merchantName: string,
): string {
  return buildThaiQrPayload({
    billerId,
    reference1: thaiQrReferenceFor(t.id),
    amountMinor: t.amountMinor,
    merchantName,
  });
}
