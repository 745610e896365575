// The faithful surface (docs/connectors/scb-sim.md "The faithful surface"): SCB's OAuth token,
// QR30 create v1 and v2, the bill-payment inquiry and the slip, with SCB's paths, headers, field
// names and its {"status":{"code","description"},"data"} envelope. A call is checked in this
// order and the first broken rule answers: the standard headers (9100) → the credentials (token:
// 9500) or the bearer token (9300) → the body's or query's fields (1101 missing, 1102 invalid).
import type { IncomingHttpHeaders } from 'node:http';
import { toInstant } from '../sim-kit/clock.ts';
import { parseJsonObject } from '../sim-kit/wire-json.ts';
import type { SimConfig } from './config.ts';
import type { Endpoint } from './endpoints.ts';
import { transactionRecord, type CreateInput, type SimState } from './state.ts';
import { QR_IMAGE_STUB } from './qr-payload.ts';
import { refuse, scbAnswer, type ApiAnswer } from './status.ts';

export type ApiRequest = {
  endpoint: Endpoint;
  method: string;
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  rawBody: string;
  /** The slip's path parameter. */
  transactionId?: string;
};

export type ApiContext = { config: SimConfig; state: SimState };

type Json = Record<string, unknown>;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
};

/** References on the QR: upper-case Latin letters and digits, at most 20 (Thai QR's rule). */
const REFERENCE = /^[A-Z0-9]{1,20}$/;
/** amount: String(13,2) — at most 11 integer digits and 2 decimals. */
const AMOUNT = /^\d{1,11}(?:\.\d{1,2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EXPIRY = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;

export function answerApi(ctx: ApiContext, request: ApiRequest): ApiAnswer {
  const missing = missingHeader(request);
  if (missing !== null) return refuse('missingHeader', missing);
  if (request.endpoint === 'token') return issueToken(ctx, request);
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(request.headers, 'authorization') ?? '');
  if (bearer === null) return refuse('invalidToken', 'authorization');
  if (ctx.state.tokenStatus(bearer[1]!) !== 'valid') return refuse('invalidToken', 'authorization');
  switch (request.endpoint) {
    case 'createV1':
    case 'createV2':
      return createQr(ctx, request);
    case 'inquiry':
      return inquire(ctx, request.query);
    case 'slip':
      return slip(ctx, request.transactionId ?? '', request.query);
  }
}

/** The headers every call carries (content-type only where there is a body); v2 wants a 32-character requestUId. */
function missingHeader(request: ApiRequest): string | null {
  const names = ['resourceOwnerId', 'requestUId', 'accept-language'];
  if (request.method === 'POST') names.unshift('content-type');
  for (const name of names) if (header(request.headers, name) === undefined) return name;
  if (request.method === 'POST' && !/^application\/json\b/i.test(header(request.headers, 'content-type')!))
    return 'content-type (application/json)';
  if (request.endpoint === 'createV2' && !/^[A-Za-z0-9]{32}$/.test(header(request.headers, 'requestUId')!))
    return 'requestUId (32 letters and digits on v2)';
  return null;
}

// ── The token ───────────────────────────────────────────────────────────────

function issueToken(ctx: ApiContext, request: ApiRequest): ApiAnswer {
  const body = parseJsonObject(request.rawBody);
  if (body === null) return refuse('invalidParameter', 'the body is not a JSON object');
  const { applicationKey, applicationSecret } = body;
  if (typeof applicationKey !== 'string' || applicationKey === '')
    return refuse('missingCredentials', 'applicationKey');
  if (typeof applicationSecret !== 'string' || applicationSecret === '')
    return refuse('missingCredentials', 'applicationSecret');
  if (header(request.headers, 'resourceOwnerId') !== ctx.config.apiKey)
    return refuse('invalidCredentials', 'resourceOwnerId');
  if (applicationKey !== ctx.config.apiKey) return refuse('invalidCredentials', 'applicationKey');
  if (applicationSecret !== ctx.config.apiSecret) return refuse('invalidCredentials', 'applicationSecret');
  const token = ctx.state.issueToken();
  return scbAnswer('success', {
    accessToken: token.accessToken,
    tokenType: 'Bearer',
    expiresIn: token.expiresIn,
    expiresAt: Math.floor(token.expiresAt / 1000),
  });
}

// ── QR create v1 / v2 ───────────────────────────────────────────────────────

type Checked<T> = { value: T } | { answer: ApiAnswer };

function text(body: Json, name: string, pattern: RegExp, required: boolean): Checked<string | null> {
  const value = body[name];
  if (value === undefined || value === null || value === '')
    return required ? { answer: refuse('missingParameter', name) } : { value: null };
  if (typeof value !== 'string' || !pattern.test(value)) return { answer: refuse('invalidParameter', name) };
  return { value };
}

/** amount "100.00" → satang; "0"/"0.00": a QR without an amount (the payer enters it). */
function amountOf(body: Json): Checked<bigint | null> {
  const amount = text(body, 'amount', AMOUNT, true);
  if ('answer' in amount) return amount;
  const [whole, fraction = ''] = amount.value!.split('.');
  const satang = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  return { value: satang === 0n ? null : satang };
}

/** "2026-01-05 10:15:00" in Bangkok time → Unix ms; null when it is not such a date. */
function bangkokExpiry(value: string): number | null {
  const match = EXPIRY.exec(value);
  if (!match) return null;
  const at = toInstant(`${match[1]}T${match[2]}+07:00`);
  // Date.parse rolls 2026-02-30 over to March: only a date that reads back the same is one.
  return at !== null && new Date(at + 7 * 3_600_000).toISOString().startsWith(`${match[1]}T${match[2]}`) ? at : null;
}

function v2Limits(body: Json): Checked<Pick<CreateInput, 'numberOfTimes' | 'expiresAt'>> {
  const times = body.numberOfTimes;
  const expiry = body.expiryDate;
  let numberOfTimes: number | null = null;
  if (times !== undefined && times !== null && times !== '') {
    const n = typeof times === 'string' && /^\d{1,4}$/.test(times) ? Number(times) : times;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 9999)
      return { answer: refuse('invalidParameter', 'numberOfTimes') };
    numberOfTimes = n;
  }
  if (expiry === undefined || expiry === null || expiry === '') {
    if (numberOfTimes !== null) return { answer: refuse('missingParameter', 'expiryDate') };
    return { value: { numberOfTimes, expiresAt: null } };
  }
  const expiresAt = typeof expiry === 'string' ? bangkokExpiry(expiry) : null;
  if (expiresAt === null) return { answer: refuse('invalidParameter', 'expiryDate') };
  return { value: { numberOfTimes, expiresAt } };
}

function createQr(ctx: ApiContext, request: ApiRequest): ApiAnswer {
  const body = parseJsonObject(request.rawBody);
  if (body === null) return refuse('invalidParameter', 'the body is not a JSON object');
  const fixed = [
    ['qrType', /^PP$/],
    ['ppType', /^BILLERID$/],
    ['ppId', new RegExp(`^${ctx.config.billerId}$`)],
  ] as const;
  for (const [name, pattern] of fixed) {
    const checked = text(body, name, pattern, true);
    if ('answer' in checked) return checked.answer;
  }
  const amount = amountOf(body);
  if ('answer' in amount) return amount.answer;
  const ref1 = text(body, 'ref1', REFERENCE, true);
  if ('answer' in ref1) return ref1.answer;
  const ref2 = text(body, 'ref2', REFERENCE, false);
  if ('answer' in ref2) return ref2.answer;
  // ref3 starts with the partner's prefix SCB assigned ([A-Z]{3}); the rest is the partner's.
  const ref3 = text(body, 'ref3', new RegExp(`^${ctx.config.ref3Prefix}[A-Z0-9]{0,17}$`), true);
  if ('answer' in ref3) return ref3.answer;
  let limits: Pick<CreateInput, 'numberOfTimes' | 'expiresAt'> = { numberOfTimes: null, expiresAt: null };
  if (request.endpoint === 'createV2') {
    const checked = v2Limits(body);
    if ('answer' in checked) return checked.answer;
    limits = checked.value;
  }
  const qr = ctx.state.createQr({
    version: request.endpoint === 'createV2' ? 'v2' : 'v1',
    ref1: ref1.value!,
    ref2: ref2.value,
    ref3: ref3.value!,
    satang: amount.value,
    ...limits,
  });
  return scbAnswer('success', { qrRawData: qr.qrRawData, qrImage: QR_IMAGE_STUB });
}

// ── Inquiry and slip ────────────────────────────────────────────────────────

function inquire(ctx: ApiContext, query: URLSearchParams): ApiAnswer {
  const value = (name: string) => query.get(name)?.trim() || undefined;
  for (const name of ['eventCode', 'transactionDate', 'billerId', 'reference1'])
    if (value(name) === undefined) return refuse('missingParameter', name);
  if (value('eventCode') !== '00300100') return refuse('invalidParameter', 'eventCode');
  const date = value('transactionDate')!;
  if (!DATE.test(date) || bangkokExpiry(`${date} 00:00:00`) === null)
    return refuse('invalidParameter', 'transactionDate');
  if (!/^\d{15}$/.test(value('billerId')!)) return refuse('invalidParameter', 'billerId');
  if (!REFERENCE.test(value('reference1')!)) return refuse('invalidParameter', 'reference1');
  const ref2 = value('reference2');
  if (ref2 !== undefined && !REFERENCE.test(ref2)) return refuse('invalidParameter', 'reference2');
  const amount = value('amount');
  let satang: bigint | undefined;
  if (amount !== undefined) {
    const checked = amountOf({ amount });
    if ('answer' in checked || checked.value === null) return refuse('invalidParameter', 'amount');
    satang = checked.value;
  }
  const found = ctx.state.inquire({
    billerId: value('billerId')!,
    ref1: value('reference1')!,
    date,
    ...(ref2 !== undefined && { ref2 }),
    ...(satang !== undefined && { satang }),
  });
  return scbAnswer(
    'success',
    found.map((payment) => transactionRecord(ctx.config, payment)),
  );
}

/** The slip of one payment; sendingBank is the payer's bank, and another bank's id is not found. */
function slip(ctx: ApiContext, transactionId: string, query: URLSearchParams): ApiAnswer {
  const sendingBank = query.get('sendingBank')?.trim();
  if (!sendingBank) return refuse('missingParameter', 'sendingBank');
  if (!/^\d{3}$/.test(sendingBank)) return refuse('invalidParameter', 'sendingBank');
  const payment = ctx.state.payment(transactionId);
  if (payment === undefined || payment.payer.bankCode !== sendingBank)
    return refuse('notFound', `transactionId ${transactionId}`);
  return scbAnswer('success', transactionRecord(ctx.config, payment));
}
