// KBank QR Payment on the wire (docs/connectors/kbank.md): pure types, request builders and
// answer parsers for the OAuth token, Request QR, Inquiry, Cancel, Void and the payment callback.
// No I/O, no clock of its own. Every parser checks the answer against what was asked (our request
// id echoed, our partner and merchant) and throws ProcessorMismatch otherwise, so nothing the bank
// did not say about OUR request is ever acted on.
//
// Amounts are exact: an amount KBank sends as a JSON number (the callback's `txnAmount`) is read
// from the number's own text in the body, an amount it sends as a string (the inquiry's) from the
// string, and both become bigint 1/10,000 THB; a request's `txnAmount` is written as a number
// token with exactly two decimals (`100.50`), which JSON.stringify cannot write.
import { randomBytes } from 'node:crypto';
import { BANGKOK_OFFSET_MS } from '../../domain/bangkok-time.ts';
import { JsonNumber, parseBankJson } from '../bank-json.ts';
import { base36Reference, derivedReference } from '../derived-reference.ts';
import { ProcessorMismatch } from '../../domain/processor-errors.ts';
import { formatMinor, parseDecimal } from '../../domain/money.ts';
import type { NotificationHint, ProcessorPaymentState } from '../../app/ports/processor.ts';

export type KbankCall = 'token' | 'request' | 'inquiry' | 'cancel' | 'void';

export const KBANK_PATHS: Record<KbankCall, string> = {
  token: '/v2/oauth/token',
  request: '/v1/qrpayment/request',
  inquiry: '/v1/qrpayment/v4/inquiry',
  cancel: '/v1/qrpayment/cancel',
  void: '/v1/qrpayment/void',
};

/** KBank's sandbox scenario (`env-id`) of each call in test mode: the success of each. */
export const SANDBOX_ENV_IDS: Record<KbankCall, string> = {
  token: 'OAUTH2',
  request: 'QR002',
  inquiry: 'QR004',
  cancel: 'QR008',
  void: 'QR012',
};

export const CURRENCY = 'THB';
/** qrType "3": Thai QR, as text. */
const QR_TYPE_THAI = '3';

// ── JSON ────────────────────────────────────────────────────────────────────

export { JsonNumber, parseBankJson };
type Json = Record<string, unknown>;

/** A request body as text, in the order given; a JsonNumber is written as its text, undefined members left out. */
export function wireJson(fields: Json): string {
  const members: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(key)}:${value instanceof JsonNumber ? value.text : JSON.stringify(value)}`);
  }
  return `{${members.join(',')}}`;
}

// ── Ids and times ───────────────────────────────────────────────────────────

/** partnerTxnUid: KBank's string(15); upper-case letters and digits, which every bank in Thailand takes. */
export const TXN_UID = /^[A-Z0-9]{15}$/;
/**
 * `prefix` + 14 base-36 characters of HMAC-SHA256(secret, seed): the same seed gives the same id
 * (a retry after a crash finds the attempt it made, racing instances agree), and nobody without
 * the partner secret can guess the next one (connectors/derived-reference.ts).
 */
export function derivedTxnUid(prefix: 'Q' | 'V', secret: string, seed: string): string {
  return derivedReference(prefix, secret, seed);
}

/** `prefix` + 14 random base-36 characters: a new id for a call that moves no money (inquiry, cancel). */
export function randomTxnUid(prefix: 'I' | 'C'): string {
  return base36Reference(prefix, BigInt(`0x${randomBytes(16).toString('hex')}`));
}

/** `requestDt`: ISO 8601 in Asia/Bangkok with its offset, e.g. 2026-01-05T10:15:30+07:00. */
export function requestDt(at: number): string {
  return `${new Date(at + BANGKOK_OFFSET_MS).toISOString().slice(0, 19)}+07:00`;
}

/** 1290 → "21:30". */
export function timeOfDay(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

// ── Amounts ─────────────────────────────────────────────────────────────────

/** A request's txnAmount: 1/10,000 THB → the number token `100.50`; only whole satang, above zero. */
export function txnAmountToken(amountMinor: bigint): JsonNumber {
  if (amountMinor <= 0n || amountMinor % 100n !== 0n)
    throw new RangeError(`KBank takes positive THB amounts in whole satang, not ${amountMinor} (1/10,000 THB)`);
  return new JsonNumber(formatMinor(amountMinor, 2));
}

/** The decimal text of a JSON number token (`1.005e2` → `100.5`), by moving the point in the digits. */
function numberTokenToDecimal(token: string): string | null {
  const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/.exec(token);
  if (!match) return null;
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (match[3] === undefined) return fraction === '' ? whole : `${whole}.${fraction}`;
  const digits = whole + fraction;
  const pointAt = whole.length + Number(match[3]);
  if (pointAt <= 0) return `0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return digits + '0'.repeat(pointAt - digits.length);
  return `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/**
 * A THB amount from the bank (a decimal string, or a JSON number by its text) in 1/10,000 THB;
 * null unless it is a non-negative amount with at most two decimals.
 */
export function wireAmountToMinor(value: unknown): bigint | null {
  const text =
    typeof value === 'string' ? value.trim() : value instanceof JsonNumber ? numberTokenToDecimal(value.text) : null;
  if (text === null) return null;
  const parsed = parseDecimal(text);
  return parsed === null || parsed.significantFractionDigits > 2 ? null : parsed.minor;
}

// ── Requests ────────────────────────────────────────────────────────────────

/** Who we are at KBank: sent in every body. */
export type Partner = { partnerId: string; partnerSecret: string; merchantId: string; terminalId: string | null };

function common(partner: Partner, partnerTxnUid: string, at: number): Json {
  return {
    partnerTxnUid,
    partnerId: partner.partnerId,
    partnerSecret: partner.partnerSecret,
    requestDt: requestDt(at),
    merchantId: partner.merchantId,
    terminalId: partner.terminalId ?? undefined,
  };
}

/** The token call: Basic consumer credentials, a form body. */
export function tokenRequest(
  consumerId: string,
  consumerSecret: string,
): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization: `Basic ${Buffer.from(`${consumerId}:${consumerSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  };
}

export type QrRequest = {
  partnerTxnUid: string;
  amountMinor: bigint;
  /** Ours, in KBank's records: no personal data. */
  reference1: string;
  reference2: string | null;
};

/** Request QR (Thai QR, qrType "3"). */
export function qrRequestBody(partner: Partner, request: QrRequest, at: number): string {
  return wireJson({
    ...common(partner, request.partnerTxnUid, at),
    qrType: QR_TYPE_THAI,
    txnAmount: txnAmountToken(request.amountMinor),
    txnCurrencyCode: CURRENCY,
    reference1: request.reference1,
    reference2: request.reference2,
    reference3: null,
    reference4: null,
  });
}

/** Inquiry, Cancel and Void share one shape: a new partnerTxnUid and the QR's own. */
export function referringBody(partner: Partner, partnerTxnUid: string, origPartnerTxnUid: string, at: number): string {
  return wireJson({ ...common(partner, partnerTxnUid, at), origPartnerTxnUid });
}

// ── Answers ─────────────────────────────────────────────────────────────────

/** A business refusal: statusCode "10", KBank's errorCode, its errorDesc and the code in its parentheses. */
export type BankError = { errorCode: string | null; errorDesc: string | null; code: string | null };

export type Answer<T> = { ok: true; value: T } | { ok: false; error: BankError };

/** `QR already paid. (EMQRP)` → `EMQRP`. */
export function internalCode(errorDesc: string | null): string | null {
  return errorDesc === null ? null : (/\(([A-Z0-9_]+)\)\s*$/.exec(errorDesc)?.[1] ?? null);
}

/** "errorCode: errorDesc" for messages and logs. */
export function describeBankError(error: BankError): string {
  return [error.errorCode ?? 'no errorCode', error.errorDesc].filter((part) => part !== null).join(': ');
}

function text(body: Json, name: string): string | null {
  const value = body[name];
  return typeof value === 'string' ? value : null;
}

/** What an answer must echo: our request's id and our partner id. */
export type Expected = { partnerTxnUid: string; partnerId: string };

/**
 * The envelope every answer carries, checked: statusCode "00" or "10"; our partnerTxnUid and
 * partnerId echoed (a refusal may leave them null, never name someone else's).
 */
export function readEnvelope(body: Json, expected: Expected): Answer<Json> {
  const statusCode = text(body, 'statusCode');
  if (statusCode !== '00' && statusCode !== '10')
    throw new ProcessorMismatch(`KBank answered statusCode ${JSON.stringify(body.statusCode ?? null)}`);
  const ok = statusCode === '00';
  for (const name of ['partnerTxnUid', 'partnerId'] as const) {
    const echoed = body[name];
    if (echoed === expected[name] || (!ok && (echoed === null || echoed === undefined))) continue;
    throw new ProcessorMismatch(
      `KBank's answer names ${name} ${JSON.stringify(echoed ?? null)}, not ours (${expected[name]})`,
    );
  }
  if (ok) return { ok: true, value: body };
  const errorDesc = text(body, 'errorDesc');
  return { ok: false, error: { errorCode: text(body, 'errorCode'), errorDesc, code: internalCode(errorDesc) } };
}

export type Token = { accessToken: string; expiresInSeconds: number };

/** The token answer: `access_token`, and `expires_in` in seconds (a string at KBank). */
export function parseToken(body: Json): Token {
  const accessToken = text(body, 'access_token');
  const rawExpiry = body.expires_in;
  const expiresText = rawExpiry instanceof JsonNumber ? rawExpiry.text : typeof rawExpiry === 'string' ? rawExpiry : '';
  if (accessToken === null || accessToken === '' || !/^\d{1,9}$/.test(expiresText.trim()))
    throw new ProcessorMismatch('KBank answered the token call without access_token and expires_in');
  return { accessToken, expiresInSeconds: Number(expiresText.trim()) };
}

export type CreatedQr = { qrCode: string; accountName: string | null };

export function parseQrAnswer(body: Json, expected: Expected): Answer<CreatedQr> {
  const envelope = readEnvelope(body, expected);
  if (!envelope.ok) return envelope;
  const qrCode = text(body, 'qrCode');
  if (qrCode === null || qrCode === '') throw new ProcessorMismatch('KBank created the QR but sent no qrCode');
  return { ok: true, value: { qrCode, accountName: text(body, 'accountName') } };
}

export type KbankTxnStatus = 'REQUESTED' | 'PAID' | 'CANCELLED' | 'EXPIRED' | 'VOIDED' | 'NOT_FOUND';

const STATES: Record<KbankTxnStatus, ProcessorPaymentState> = {
  REQUESTED: 'requested',
  PAID: 'paid',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
  VOIDED: 'voided',
  NOT_FOUND: 'not_found',
};

/** KBank's txnStatus as the port's state. */
export function stateOf(txnStatus: KbankTxnStatus): ProcessorPaymentState {
  return STATES[txnStatus];
}

export type Inquiry = {
  txnStatus: KbankTxnStatus;
  txnNo: string | null;
  /** Exact, in 1/10,000 THB; null when the bank sends none (NOT_FOUND). */
  amountMinor: bigint | null;
  currency: string | null;
  merchantId: string | null;
};

/**
 * The inquiry answer, checked: a known txnStatus, our merchant id, and for a payment that was
 * paid (PAID, VOIDED) an exact amount in THB.
 */
export function parseInquiryAnswer(body: Json, expected: Expected & { merchantId: string }): Answer<Inquiry> {
  const envelope = readEnvelope(body, expected);
  if (!envelope.ok) return envelope;
  const txnStatus = text(body, 'txnStatus');
  if (txnStatus === null || !Object.hasOwn(STATES, txnStatus))
    throw new ProcessorMismatch(`KBank answered an unknown txnStatus ${JSON.stringify(body.txnStatus ?? null)}`);
  const merchantId = text(body, 'merchantId');
  if (merchantId !== null ? merchantId !== expected.merchantId : txnStatus !== 'NOT_FOUND')
    throw new ProcessorMismatch(`KBank's inquiry names merchant ${merchantId ?? 'none'}, not ours`);
  const rawAmount = body.txnAmount;
  const amountMinor = rawAmount === null || rawAmount === undefined ? null : wireAmountToMinor(rawAmount);
  if (amountMinor === null && rawAmount !== null && rawAmount !== undefined)
    throw new ProcessorMismatch(`KBank's inquiry carries an amount that is not exact THB: ${shown(rawAmount)}`);
  const currency = text(body, 'txnCurrencyCode');
  const paid = txnStatus === 'PAID' || txnStatus === 'VOIDED';
  if (paid && amountMinor === null) throw new ProcessorMismatch(`KBank reports ${txnStatus} without an amount`);
  if (paid && currency !== CURRENCY)
    throw new ProcessorMismatch(`KBank reports ${txnStatus} in ${currency ?? 'no currency'}, not ${CURRENCY}`);
  const txnNo = body.txnNo instanceof JsonNumber ? body.txnNo.text : text(body, 'txnNo');
  return {
    ok: true,
    value: { txnStatus: txnStatus as KbankTxnStatus, txnNo: txnNo || null, amountMinor, currency, merchantId },
  };
}

/** Cancel: the envelope only. */
export function parseCancelAnswer(body: Json, expected: Expected): Answer<null> {
  const envelope = readEnvelope(body, expected);
  return envelope.ok ? { ok: true, value: null } : envelope;
}

/** Void: the envelope and the voided payment's txnNo, when KBank sends it. */
export function parseVoidAnswer(body: Json, expected: Expected): Answer<{ txnNo: string | null }> {
  const envelope = readEnvelope(body, expected);
  if (!envelope.ok) return envelope;
  const txnNo = body.txnNo instanceof JsonNumber ? body.txnNo.text : text(body, 'txnNo');
  return { ok: true, value: { txnNo: txnNo || null } };
}

function shown(value: unknown): string {
  return value instanceof JsonNumber ? value.text : JSON.stringify(value);
}

// ── The callback (bank → us) ────────────────────────────────────────────────

/** What KBank's payment callback documentation asks the receiver to answer, whatever the callback said. */
export const CALLBACK_ANSWER = '{"statusCode":"00","errorCode":null,"errorDesc":null}';

const REFERENCE = /^[A-Za-z0-9-]{1,40}$/;

/**
 * A payment callback as a hint: the QR it names (its Request-QR partnerTxnUid) and the payment's
 * txnNo. Nothing in it is trusted (KBank signs nothing); a callback for another partner or
 * merchant is not ours to check.
 */
export function parseCallback(
  body: Buffer,
  contentType: string | undefined,
  ours: { partnerId: string; merchantId: string },
): NotificationHint {
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) return { ok: false, reason: 'not application/json' };
  const parsed = parseBankJson(body.toString('utf8'));
  if (parsed === null) return { ok: false, reason: 'not a JSON object' };
  const reference = text(parsed, 'partnerTxnUid');
  if (reference === null || !REFERENCE.test(reference)) return { ok: false, reason: 'no partnerTxnUid' };
  const partnerId = text(parsed, 'partnerId');
  if (partnerId !== null && partnerId !== ours.partnerId) return { ok: false, reason: `for partner ${partnerId}` };
  const merchantId = text(parsed, 'merchantId');
  if (merchantId !== null && merchantId !== ours.merchantId) return { ok: false, reason: `for merchant ${merchantId}` };
  const txnNo = parsed.txnNo instanceof JsonNumber ? parsed.txnNo.text : text(parsed, 'txnNo');
  return { ok: true, reference, processorTxnNo: txnNo !== null && txnNo !== '' ? txnNo.slice(0, 40) : null };
}
