// SCB's QR30 (bill payment) API on the wire (docs/connectors/scb.md): pure types, request builders
// and answer parsers for the OAuth token, QR create (v2), the bill-payment inquiry and the payment
// confirmation. No I/O, no clock of its own. Every parser checks what it reads against what was
// asked (our biller id, our ref1) and throws ProcessorMismatch otherwise, so nothing the bank did
// not say about OUR payment is ever acted on.
//
// Amounts are exact: SCB writes them as decimal strings ("100.00"); a JSON number is read from its
// own text in the body, never as a float, and both become bigint 1/10,000 THB.
import { randomBytes } from 'node:crypto';
import type { NotificationHint, ReportedPayer } from '../../app/ports/processor.ts';
import { BANGKOK_OFFSET_MS } from '../../domain/bangkok-time.ts';
import { isJsonObject, JsonNumber, parseBankJson } from '../bank-json.ts';
import { derivedReference } from '../derived-reference.ts';
import { formatMinor, parseDecimal } from '../../domain/money.ts';
import { ProcessorMismatch } from '../../domain/processor-errors.ts';

export type ScbCall = 'token' | 'create' | 'inquiry';

export const SCB_PATHS: Record<ScbCall, string> = {
  token: '/v1/oauth/token',
  create: '/v2/payment/qrcode/create',
  inquiry: '/v1/payment/billpayment/inquiry',
};

/** SCB's business codes (`status.code`) the connector acts on (docs/connectors/scb.md "Errors"). */
export const SCB_CODES = {
  success: 1000,
  missingParameters: 1101,
  invalidParameters: 1102,
  notFound: 1104,
  duplicated: 1111,
  headersMissing: 9100,
  tokenExpired: 9300,
  invalidCredentials: 9500,
  serverError: 9700,
  unavailable: 9900,
} as const;

export const CURRENCY = 'THB';
/** ISO 4217 numeric of THB, as SCB writes `currencyCode`. */
export const CURRENCY_CODE = '764';
/** The inquiry's event code for a bill payment. */
const EVENT_CODE = '00300100';

// ── JSON ────────────────────────────────────────────────────────────────────

export { JsonNumber };
type Json = Record<string, unknown>;

/** SCB's JSON object with every number kept as its source text (connectors/bank-json.ts). */
export const parseScbJson = parseBankJson;
const isObject = isJsonObject;

function text(body: Json, name: string): string | null {
  const value = body[name];
  if (typeof value === 'string') return value;
  return value instanceof JsonNumber ? value.text : null;
}

// ── Ids and times ───────────────────────────────────────────────────────────

/**
 * `prefix` + 14 base-36 characters of HMAC-SHA256(secret, seed): our ref1 of an attempt. The same
 * seed gives the same ref1 (an instance that retries after a crash inquires about the attempt it
 * made), and nobody without the API secret can guess another payment's (connectors/derived-reference.ts).
 */
export function derivedRef1(prefix: 'Q' | 'V', secret: string, seed: string): string {
  return derivedReference(prefix, secret, seed);
}

/** A ref1 we send: 15 upper-case letters and digits (the port's limit; SCB takes up to 20). */
export const REF1 = /^[A-Z0-9]{1,15}$/;
const REFERENCE = /^[A-Z0-9]{1,20}$/;

/** `requestUId`: 32 random letters and digits, new per call (v2 demands exactly that shape). */
export function newRequestUId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: bytes above it are dropped so every character is equally likely.
  let id = '';
  while (id.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && id.length < 32) id += alphabet[byte % 62];
    }
  }
  return id;
}

/** An instant as SCB's `expiryDate`: `YYYY-MM-DD HH:MM:SS` in Bangkok time, to the second (cut, never rounded up). */
export function bangkokDateTime(at: number): string {
  return new Date(at + BANGKOK_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

// ── Amounts ─────────────────────────────────────────────────────────────────

/** A request's amount: 1/10,000 THB → "100.50"; only whole satang, above zero. */
export function amountText(amountMinor: bigint): string {
  if (amountMinor <= 0n || amountMinor % 100n !== 0n)
    throw new RangeError(`SCB takes positive THB amounts in whole satang, not ${amountMinor} (1/10,000 THB)`);
  return formatMinor(amountMinor, 2);
}

/**
 * A THB amount from the bank (a decimal string, or a plain JSON number by its text) in 1/10,000
 * THB; null unless it is a non-negative amount with at most two decimals.
 */
export function wireAmountToMinor(value: unknown): bigint | null {
  const raw = typeof value === 'string' ? value.trim() : value instanceof JsonNumber ? value.text : null;
  if (raw === null || !/^\d+(\.\d+)?$/.test(raw)) return null;
  const parsed = parseDecimal(raw);
  return parsed === null || parsed.significantFractionDigits > 2 ? null : parsed.minor;
}

// ── Requests ────────────────────────────────────────────────────────────────

/** The headers of every call: our API key, a new requestUId, English; the token after the token call. */
export function scbHeaders(apiKey: string, requestUId: string, accessToken: string | null): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json',
    'accept-language': 'EN',
    resourceOwnerId: apiKey,
    requestUId,
    ...(accessToken !== null && { authorization: `Bearer ${accessToken}` }),
  };
}

export function tokenBody(apiKey: string, apiSecret: string): string {
  return JSON.stringify({ applicationKey: apiKey, applicationSecret: apiSecret });
}

export type QrCreate = {
  billerId: string;
  amountMinor: bigint;
  ref1: string;
  ref2: string;
  ref3: string;
  /** When SCB stops accepting payment on it (sent as Bangkok time, to the second). */
  expiresAt: number;
};

/** QR create v2: a Thai QR tag 30 for our biller id, paid once at most, until `expiresAt`. */
export function qrCreateBody(request: QrCreate): string {
  for (const [name, value] of [
    ['ref1', request.ref1],
    ['ref2', request.ref2],
    ['ref3', request.ref3],
  ] as const) {
    if (!REFERENCE.test(value)) throw new RangeError(`SCB ${name} must be 1-20 of A-Z and 0-9, not ${value}`);
  }
  return JSON.stringify({
    qrType: 'PP',
    ppType: 'BILLERID',
    ppId: request.billerId,
    amount: amountText(request.amountMinor),
    ref1: request.ref1,
    ref2: request.ref2,
    ref3: request.ref3,
    numberOfTimes: 1,
    expiryDate: bangkokDateTime(request.expiresAt),
  });
}

/** The inquiry's query string: one Bangkok date (the day the customer paid), our biller id and ref1. */
export function inquiryQuery(billerId: string, ref1: string, date: string): string {
  const query = new URLSearchParams({ eventCode: EVENT_CODE, transactionDate: date, billerId, reference1: ref1 });
  return `?${query.toString()}`;
}

// ── Answers ─────────────────────────────────────────────────────────────────

/** Every answer's envelope: SCB's business code and its description, and the data. */
export type Envelope = { code: number; description: string; data: unknown };

/** The envelope of an answer; null when the text is not one (no JSON object with a numeric status.code). */
export function parseEnvelope(body: string): Envelope | null {
  const json = parseScbJson(body);
  const status = json?.status;
  if (!json || !isObject(status)) return null;
  const code = status.code;
  const codeText = code instanceof JsonNumber ? code.text : typeof code === 'string' ? code : '';
  if (!/^\d{1,6}$/.test(codeText)) return null;
  const description = typeof status.description === 'string' ? status.description : '';
  return { code: Number(codeText), description, data: json.data ?? null };
}

/** "1102 invalid parameters" for messages and logs: the code and SCB's description, printable and short. */
export function describeAnswer(envelope: Pick<Envelope, 'code' | 'description'>): string {
  const said = envelope.description.replace(/[^\x20-\x7e]/g, ' ').slice(0, 160);
  return `${envelope.code}${said ? ` ${said}` : ''}`;
}

export type Token = { accessToken: string; expiresInSeconds: number };

/** The token's data: `accessToken` and `expiresIn` in seconds (30 minutes at SCB). */
export function parseToken(data: unknown): Token {
  const accessToken = isObject(data) ? text(data, 'accessToken') : null;
  const expiresIn = isObject(data) ? text(data, 'expiresIn') : null;
  if (accessToken === null || accessToken === '' || expiresIn === null || !/^\d{1,9}$/.test(expiresIn.trim()))
    throw new ProcessorMismatch('SCB answered the token call without accessToken and expiresIn');
  return { accessToken, expiresInSeconds: Number(expiresIn.trim()) };
}

/** The create's data: the QR payload (its image is not used: the page draws the payload). */
export function parseCreateAnswer(data: unknown): { qrRawData: string } {
  const qrRawData = isObject(data) ? text(data, 'qrRawData') : null;
  if (qrRawData === null || qrRawData === '') throw new ProcessorMismatch('SCB created the QR but sent no qrRawData');
  return { qrRawData };
}

/** One paid bill payment as SCB reports it (an inquiry's record, a confirmation's body). */
export type PaidRecord = {
  transactionId: string;
  /** Exact, in 1/10,000 THB. */
  amountMinor: bigint;
  /** When the customer paid, as SCB says (ISO 8601 with its offset), or null. */
  paidAt: number | null;
  billerId: string;
  ref1: string;
  payer: ReportedPayer;
};

/**
 * The inquiry's data: one record per payment of our ref1 on that date, each checked (our biller
 * id and ref1, THB, an exact amount, a transaction id); an empty list when nothing was paid.
 */
export function parseInquiryRecords(data: unknown, expected: { billerId: string; ref1: string }): PaidRecord[] {
  if (data === null) return [];
  if (!Array.isArray(data)) throw new ProcessorMismatch('SCB answered the inquiry without a list of payments');
  return data.map((record: unknown) => {
    if (!isObject(record)) throw new ProcessorMismatch('SCB answered the inquiry with a record that is not an object');
    return readRecord(record, expected);
  });
}

function readRecord(record: Json, expected: { billerId: string; ref1: string }): PaidRecord {
  const transactionId = text(record, 'transactionId');
  if (transactionId === null || !/^[A-Za-z0-9-]{1,64}$/.test(transactionId))
    throw new ProcessorMismatch(`SCB reports a payment without a usable transactionId: ${shown(record.transactionId)}`);
  const billerId = text(record, 'payeeProxyId');
  if (billerId !== expected.billerId)
    throw new ProcessorMismatch(`SCB reports payment ${transactionId} to biller ${billerId ?? 'none'}, not ours`);
  const ref1 = text(record, 'billPaymentRef1');
  if (ref1 !== expected.ref1)
    throw new ProcessorMismatch(
      `SCB reports payment ${transactionId} for ref1 ${ref1 ?? 'none'}, not ${expected.ref1}`,
    );
  const currency = text(record, 'currencyCode');
  if (currency !== CURRENCY_CODE)
    throw new ProcessorMismatch(`SCB reports payment ${transactionId} in currency ${currency ?? 'none'}, not 764`);
  const amountMinor = wireAmountToMinor(record.amount);
  if (amountMinor === null)
    throw new ProcessorMismatch(
      `SCB reports payment ${transactionId} with an amount that is not exact THB: ${shown(record.amount)}`,
    );
  const when = text(record, 'transactionDateandTime');
  const paidAt = when !== null && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(when) ? Date.parse(when) : NaN;
  return {
    transactionId,
    amountMinor,
    paidAt: Number.isFinite(paidAt) ? paidAt : null,
    billerId,
    ref1,
    payer: {
      bankCode: field(record, 'sendingBankCode', 8),
      accountNumber: field(record, 'payerAccountNumber', 40),
      name: field(record, 'payerName', 140),
    },
  };
}

/** A reported text field as it came (trimmed, printable, at most `max` characters); null when absent or empty. */
function field(record: Json, name: string, max: number): string | null {
  const value = text(record, name)?.trim();
  if (!value) return null;
  return value.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, max);
}

function shown(value: unknown): string {
  return value instanceof JsonNumber ? value.text : (JSON.stringify(value) ?? 'nothing');
}

// ── The confirmation (bank → us) ────────────────────────────────────────────

/**
 * What SCB's confirmation documentation asks the partner to answer: success, its transactionId
 * and our id for the confirmation. SCB resends a confirmation that was not answered 200.
 */
export function confirmationReply(transactionId: string | null, confirmId: string): string {
  return JSON.stringify({ resCode: '00', resDesc: 'success', transactionId: transactionId ?? '', confirmId });
}

/** The transactionId a confirmation names, for the reply; null when it names none usable. */
export function confirmationTransactionId(body: Buffer): string | null {
  const parsed = parseScbJson(body.toString('utf8'));
  const id = parsed ? text(parsed, 'transactionId') : null;
  return id !== null && /^[A-Za-z0-9-]{1,64}$/.test(id) ? id : null;
}

/**
 * A payment confirmation as a hint: the attempt it names (billPaymentRef1) and SCB's transaction
 * id. Nothing in it is trusted (SCB signs nothing); one for another biller is not ours to check.
 */
export function parseConfirmation(
  body: Buffer,
  contentType: string | undefined,
  ours: { billerId: string },
): NotificationHint {
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) return { ok: false, reason: 'not application/json' };
  const parsed = parseScbJson(body.toString('utf8'));
  if (parsed === null) return { ok: false, reason: 'not a JSON object' };
  const reference = text(parsed, 'billPaymentRef1');
  if (reference === null || !REFERENCE.test(reference)) return { ok: false, reason: 'no billPaymentRef1' };
  const billerId = text(parsed, 'payeeProxyId');
  if (billerId !== null && billerId !== ours.billerId) return { ok: false, reason: `for biller ${billerId}` };
  return { ok: true, reference, processorTxnNo: confirmationTransactionId(body) };
}
