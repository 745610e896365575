// The faithful surface (§2–§4): the OAuth token, the five QR calls and the two-way TLS exercise,
// with KBank's paths, headers, field names and types. Gateway-level refusals (credentials, token,
// path) are non-2xx `{"code":"openapi_error","message":…}`; business errors are HTTP 200 with
// statusCode "10", errorCode and errorDesc "<text> (<CODE>)". A business call is checked in the
// order of §5.2: JSON (EMBR) → partner credentials (EMA, EMPM) → merchant (EMDNE) → partnerTxnUid
// form and uniqueness (EMDR; from here on the id is spent) → requestDt and terminalId form → the
// call's own fields. With `x-test-mode: true` and an `env-id` the canned sandbox answer is given
// instead of the stateful one (sandbox-scenarios.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { parseTxnAmount, satangNumber, satangText } from './amounts.ts';
import { parseIsoInstant } from '../sim-kit/clock.ts';
import type { Partner, SimConfig } from './config.ts';
import type { Endpoint } from './endpoints.ts';
import { bankError, invalidField, type BankError } from './errors.ts';
import { answerScenario, scenarioEndpoint } from './sandbox-scenarios.ts';
import type { QrRecord, SimState } from './state.ts';
import { parseJsonObject, toWireJson } from '../sim-kit/wire-json.ts';

export type ApiRequest = {
  endpoint: Endpoint;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The verified client certificate's subject, when one was presented over TLS. */
  clientCertificate: { subject: string } | null;
};

export type ApiAnswer = { status: number; body: string; handling: string };
export type ApiContext = { config: SimConfig; state: SimState };

type Json = Record<string, unknown>;

export function openapiError(status: number, message: string, handling = 'refused'): ApiAnswer {
  return { status, body: toWireJson({ code: 'openapi_error', message }), handling };
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The sandbox scenario a request asks for: `x-test-mode: true` (any case) and an `env-id`. */
function requestedScenario(ctx: ApiContext, headers: IncomingHttpHeaders): string | null {
  if (!ctx.config.sandboxScenarios || header(headers, 'x-test-mode')?.trim().toLowerCase() !== 'true') return null;
  return header(headers, 'env-id')?.trim() || null;
}

export function answerApi(ctx: ApiContext, request: ApiRequest): ApiAnswer {
  const envId = requestedScenario(ctx, request.headers);
  if (request.endpoint === 'token') return issueToken(ctx, request, envId);
  const refused = checkBearer(ctx, request.headers);
  if (refused) return refused;
  if (request.endpoint === 'ssl') return exerciseSsl(request);
  if (envId !== null) {
    if (scenarioEndpoint(envId) !== request.endpoint) return unknownScenario(envId, request.endpoint);
    return { ...answerScenario(envId, request.rawBody), handling: `scenario:${envId}` };
  }
  return { ...answerBusiness(ctx, request.endpoint, request.rawBody), handling: 'stateful' };
}

function unknownScenario(envId: string, endpoint: Endpoint): ApiAnswer {
  return openapiError(400, `env-id ${envId} is not a sandbox scenario of this resource (${endpoint})`);
}

// ── OAuth 2.0 client credentials (§3) ───────────────────────────────────────

function issueToken(ctx: ApiContext, request: ApiRequest, envId: string | null): ApiAnswer {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header(request.headers, 'authorization') ?? '');
  const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const consumerId = colon < 0 ? '' : decoded.slice(0, colon);
  const expected = ctx.config.consumers.get(consumerId);
  if (expected === undefined) return openapiError(401, 'Invalid ApiKey');
  if (decoded.slice(colon + 1) !== expected) return openapiError(401, 'Invalid Consumer Secret');
  const contentType = header(request.headers, 'content-type') ?? '';
  const grantType = new URLSearchParams(request.rawBody).get('grant_type');
  if (!contentType.toLowerCase().startsWith('application/x-www-form-urlencoded') || grantType !== 'client_credentials')
    return openapiError(400, 'Unsupported grant type: grant_type must be client_credentials (form-encoded)');
  if (envId !== null && envId !== 'OAUTH2') return unknownScenario(envId, 'token');
  const { accessToken, expiresIn } = ctx.state.issueToken(consumerId);
  const body = {
    'developer.email': 'dev-sandbox-openapi@kasikornbank.com',
    token_type: 'Bearer',
    client_id: consumerId,
    access_token: accessToken,
    scope: '',
    expires_in: String(expiresIn),
    status: 'approved',
  };
  return { status: 200, body: toWireJson(body), handling: envId === null ? 'stateful' : 'scenario:OAUTH2' };
}

function checkBearer(ctx: ApiContext, headers: IncomingHttpHeaders): ApiAnswer | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, 'authorization') ?? '');
  const status = bearer ? ctx.state.tokenStatus(bearer[1]!) : 'unknown';
  if (status === 'unknown') return openapiError(401, 'Invalid Access Token');
  if (status === 'expired') return openapiError(401, 'Access Token expired');
  return null;
}

// ── Exercise 16: two-way TLS ────────────────────────────────────────────────

function exerciseSsl(request: ApiRequest): ApiAnswer {
  if (request.clientCertificate === null) return openapiError(401, 'Client certificate required');
  const body = { status: 'success', certificateObjs: { subject: request.clientCertificate.subject } };
  return { status: 200, body: toWireJson(body), handling: 'stateful' };
}

// ── The QR calls (§4.2–§4.7) ────────────────────────────────────────────────

/** The answer's envelope: this request's ids echoed, statusCode, errorCode, errorDesc. */
export function envelope(body: Json | null, error: BankError | null): Json {
  const echo = (name: string) => (typeof body?.[name] === 'string' ? body[name] : null);
  return {
    partnerTxnUid: echo('partnerTxnUid'),
    partnerId: echo('partnerId'),
    statusCode: error === null ? '00' : '10',
    errorCode: error?.errorCode ?? null,
    errorDesc: error?.errorDesc ?? null,
  };
}

type Business = { status: number; body: string };

const ok = (body: Json, fields: Json = {}): Business => ({
  status: 200,
  body: toWireJson({ ...envelope(body, null), ...fields }),
});

function refuse(endpoint: Endpoint, body: Json | null, error: BankError): Business {
  // A failed create answers qrCode and accountName as null (not documented; §4.2).
  const extra = endpoint === 'request' ? { accountName: null, qrCode: null } : {};
  return { status: 200, body: toWireJson({ ...envelope(body, error), ...extra }) };
}

type Checked = { body: Json; partner: Partner; merchantId: string; terminalId: string | null };

function optionalText(value: unknown, max: number): value is string | null | undefined {
  return value === undefined || value === null || (typeof value === 'string' && value.length <= max);
}

/** The checks every QR call shares, in order; the partnerTxnUid is spent once its form is right. */
function checkCommon(ctx: ApiContext, body: Json): Checked | BankError {
  const partner = typeof body.partnerId === 'string' ? ctx.config.partners.get(body.partnerId) : undefined;
  if (partner === undefined || body.partnerSecret !== partner.secret) return bankError('EMA');
  const merchantId = body.merchantId;
  if (typeof merchantId !== 'string' || !partner.merchantIds.includes(merchantId)) {
    return typeof merchantId === 'string' && ctx.config.merchantPartner.has(merchantId)
      ? bankError('EMPM')
      : bankError('EMDNE');
  }
  const uid = body.partnerTxnUid;
  if (typeof uid !== 'string' || !ctx.config.partnerTxnUidPattern.test(uid)) return invalidField('partnerTxnUid');
  if (!ctx.state.consumeUid(partner.partnerId, uid)) return bankError('EMDR');
  const requestDt = body.requestDt;
  if (typeof requestDt !== 'string' || requestDt.length > 33 || parseIsoInstant(requestDt) === null)
    return invalidField('requestDt');
  if (!optionalText(body.terminalId, 8) || body.terminalId === '') return invalidField('terminalId');
  return { body, partner, merchantId, terminalId: body.terminalId ?? null };
}

function answerBusiness(ctx: ApiContext, endpoint: Endpoint, rawBody: string): Business {
  const body = parseJsonObject(rawBody);
  if (body === null) return refuse(endpoint, null, bankError('EMBR'));
  const checked = checkCommon(ctx, body);
  if ('errorCode' in checked) return refuse(endpoint, body, checked);
  switch (endpoint) {
    case 'request':
      return createQr(ctx, checked);
    case 'inquiry':
      return inquire(ctx, checked);
    case 'cancel':
    case 'void':
      return cancelOrVoid(ctx, endpoint, checked);
    case 'settlement':
      return settle(ctx, checked);
    default:
      throw new Error(`not a QR call: ${endpoint}`);
  }
}

function createQr(ctx: ApiContext, { body, partner, merchantId, terminalId }: Checked): Business {
  const qrType = body.qrType;
  if (qrType !== '3' && qrType !== 3) return refuse('request', body, bankError('EMIQR', String(qrType)));
  if (body.txnCurrencyCode !== 'THB') return refuse('request', body, bankError('EMICC', String(body.txnCurrencyCode)));
  const amount = parseTxnAmount(body.txnAmount);
  if (!amount.ok) return refuse('request', body, bankError(amount.code));
  const { reference1, reference2, reference3, reference4, metadata } = body;
  if (typeof reference1 !== 'string' || reference1.trim() === '') return refuse('request', body, bankError('EMIR'));
  for (const [name, value, max] of [
    ['reference1', reference1, 100],
    ['reference2', reference2, 100],
    ['reference3', reference3, 100],
    ['reference4', reference4, 100],
    ['metadata', metadata, 500],
  ] as const) {
    if (!optionalText(value, max)) return refuse('request', body, invalidField(name));
  }
  const record = ctx.state.createQr({
    partner,
    partnerTxnUid: body.partnerTxnUid as string,
    merchantId,
    terminalId,
    satang: amount.satang,
    reference1,
    reference2: (reference2 as string | null | undefined) ?? null,
    reference3: (reference3 as string | null | undefined) ?? null,
    reference4: (reference4 as string | null | undefined) ?? null,
    metadata: (metadata as string | null | undefined) ?? null,
  });
  return ok(body, { accountName: partner.accountName, qrCode: record.qrCode, sof: ['PP'] });
}

function original(ctx: ApiContext, { body, partner, merchantId }: Checked): QrRecord | undefined {
  const orig = body.origPartnerTxnUid;
  return typeof orig === 'string' ? ctx.state.lookup(partner.partnerId, merchantId, orig) : undefined;
}

/** §4.4's fields of a QR; txnAmount is a string here, unlike everywhere else. */
export function inquiryFields(record: QrRecord): Json {
  return {
    txnStatus: record.status,
    txnNo: record.txnNo ?? undefined,
    loyaltyId: record.loyaltyId ?? undefined,
    merchantId: record.merchantId,
    terminalId: record.terminalId ?? undefined,
    qrType: record.qrType,
    txnAmount: satangText(record.satang),
    txnCurrencyCode: record.currency,
    reference1: record.reference1,
    reference2: record.reference2,
    reference3: record.reference3,
    reference4: record.reference4,
  };
}

function inquire(ctx: ApiContext, checked: Checked): Business {
  const record = original(ctx, checked);
  if (record !== undefined) return ok(checked.body, inquiryFields(record));
  if (ctx.config.unknownInquiry === 'EMITDNE') return refuse('inquiry', checked.body, bankError('EMITDNE'));
  return ok(checked.body, {
    txnStatus: 'NOT_FOUND',
    merchantId: checked.merchantId,
    qrType: null,
    txnAmount: null,
    txnCurrencyCode: null,
    reference1: null,
    reference2: null,
    reference3: null,
    reference4: null,
  });
}

function cancelOrVoid(ctx: ApiContext, endpoint: 'cancel' | 'void', checked: Checked): Business {
  const record = original(ctx, checked);
  if (record === undefined) return refuse(endpoint, checked.body, bankError('EMITDNE'));
  const outcome = endpoint === 'cancel' ? ctx.state.cancel(record) : ctx.state.void(record);
  if (!outcome.ok) return refuse(endpoint, checked.body, outcome.error);
  return ok(checked.body, endpoint === 'void' ? { txnNo: record.txnNo } : {});
}

function settle(ctx: ApiContext, { body, partner, merchantId, terminalId }: Checked): Business {
  if (terminalId === null) return refuse('settlement', body, invalidField('terminalId'));
  if (ctx.state.settlementBlackedOut()) return refuse('settlement', body, bankError('EMSMSG'));
  const settled = ctx.state.settle(merchantId);
  return ok(body, {
    settlementAmount: satangNumber(settled.satang),
    settlementCurrencyCode: 'THB',
    accountNo: partner.accountNo.slice(-4).padStart(partner.accountNo.length, 'X'),
    accountName: partner.accountName,
  });
}
