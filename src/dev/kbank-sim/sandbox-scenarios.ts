// KBank's sandbox answers by scenario, not by data (§4.11): `x-test-mode: true` and `env-id`
// choose a canned answer, whatever ids the body carries. The simulator gives the same canned
// answers so a connector can replay KBank's 16 exercises offline. A canned answer echoes the
// request's partnerTxnUid and partnerId (the exercises assert both), touches no state and spends
// no partnerTxnUid (the exercises reuse ids: PARTNERTEST0007 is inquired, cancelled and voided).
// Only the body's JSON is checked (EMBR); the access token is checked as everywhere.
import { parseTxnAmount } from './amounts.ts';
import type { Endpoint } from './endpoints.ts';
import { bankError, DEFAULT_PLACEHOLDER_ERRORS, type BankError } from './errors.ts';
import { buildBankQrPayload } from './qr-payload.ts';
import { parseJsonObject, toWireJson } from '../sim-kit/wire-json.ts';

/** The sandbox's fixed test data, as KBank's exercises use it (GP-TEST, EX-*). */
export const SANDBOX_TEST_DATA = {
  partnerId: 'PTR1051673',
  partnerSecret: 'd4bded59200547bc85903574a293831b',
  merchantId: 'KB102057149704',
} as const;

export type SandboxExercise = {
  /** KBank's exercise number (1–16). */
  exercise: number;
  /** The env-id header; exercise 16 sends `x-test-mode` only. */
  envId: string | null;
  endpoint: Endpoint;
  title: string;
  partnerTxnUid?: string;
  origPartnerTxnUid?: string;
  /** The documented outcome: statusCode, and txnStatus for inquiries. */
  expect: { statusCode?: '00' | '10'; txnStatus?: string; errorCode?: string; httpStatus: number };
};

/** The 16 exercises with the ids KBank's published exercise scripts send. */
export const SANDBOX_EXERCISES: readonly SandboxExercise[] = [
  { exercise: 1, envId: 'OAUTH2', endpoint: 'token', title: 'OAuth 2.0 token', expect: { httpStatus: 200 } },
  {
    exercise: 2,
    envId: 'QR002',
    endpoint: 'request',
    title: 'Request Thai QR',
    partnerTxnUid: 'PARTNERTEST0001',
    expect: { httpStatus: 200, statusCode: '00' },
  },
  {
    exercise: 3,
    envId: 'QR003',
    endpoint: 'request',
    title: 'Request QR credit card',
    partnerTxnUid: 'PARTNERTEST0001-2',
    expect: { httpStatus: 200, statusCode: '00' },
  },
  ...(
    [
      [4, 'QR004', 'PARTNERTEST0002', 'PARTNERTEST0001', 'REQUESTED'],
      [5, 'QR005', 'PARTNERTEST0003', 'TESTCANCELQR001', 'CANCELLED'],
      [6, 'QR006', 'PARTNERTEST0004', 'PARTNERTEST0007', 'PAID'],
      [7, 'QR007', 'PARTNERTEST0005', 'PARTNERTEST0011', 'VOIDED'],
    ] as const
  ).map(([exercise, envId, partnerTxnUid, origPartnerTxnUid, txnStatus]): SandboxExercise => ({
    exercise,
    envId,
    endpoint: 'inquiry',
    title: `Inquiry: ${txnStatus.toLowerCase()}`,
    partnerTxnUid,
    origPartnerTxnUid,
    expect: { httpStatus: 200, statusCode: '00', txnStatus },
  })),
  ...(
    [
      [8, 'QR008', 'cancel', 'Cancel a requested QR', 'PARTNERTEST0006', 'PARTNERTEST0001', '00', undefined],
      [9, 'QR010', 'cancel', 'Cancel a paid QR', 'PARTNERTEST0007', 'PARTNERTEST0007', '10', 'qr_paid'],
      [10, 'QR011', 'cancel', 'Cancel a voided QR', 'PARTNERTEST0008', 'PARTNERTEST0011', '10', 'qr_void'],
      [11, 'QR012', 'void', 'Void a paid Thai QR payment', 'PARTNERTEST0009', 'PARTNERTEST0011', '00', undefined],
      [12, 'QR013', 'void', 'Void a QR credit card payment', 'PARTNERTEST0009-2', 'PARTNERTEST0001-2', '00', undefined],
      [
        13,
        'QR014',
        'void',
        'Void an unpaid QR',
        'PARTNERTEST0010',
        'PARTNERTEST0017',
        '10',
        'invalid_origPartnerTxnUid',
      ],
      [14, 'QR015', 'void', 'Void a settled payment', 'PARTNERTEST0011', 'PARTNERTEST0016', '10', 'settlement_error'],
      [15, 'QR016', 'void', 'Void over the day', 'PARTNERTEST0012', 'PARTNERTEST0007', '10', 'general_error'],
    ] as const
  ).map(
    ([exercise, envId, endpoint, title, partnerTxnUid, origPartnerTxnUid, statusCode, errorCode]): SandboxExercise => ({
      exercise,
      envId,
      endpoint,
      title,
      partnerTxnUid,
      origPartnerTxnUid,
      expect: { httpStatus: 200, statusCode, ...(errorCode !== undefined && { errorCode }) },
    }),
  ),
  { exercise: 16, envId: null, endpoint: 'ssl', title: 'Two-way SSL', expect: { httpStatus: 200 } },
];

/** The canned QRs' biller id and the sandbox's payee name (FZ-EX). */
const SANDBOX_BILLER_ID = '0105560000001';
const SANDBOX_ACCOUNT_NAME = 'Kasikorn API';
const SANDBOX_TXN_NO = '00000000000000000001';
/** The canned inquiries describe the QR of exercise 2. */
const CANNED_QR = {
  qrType: '3',
  txnAmount: '100.00',
  txnCurrencyCode: 'THB',
  reference1: 'INV001',
  reference2: 'HELLOWORLD',
  reference3: 'INV001',
  reference4: 'INV001',
};

type Json = Record<string, unknown>;
type Canned = { endpoint: Endpoint; answer(body: Json): Json };

const echo = (body: Json, error: BankError | null = null): Json => ({
  partnerTxnUid: typeof body.partnerTxnUid === 'string' ? body.partnerTxnUid : null,
  partnerId: typeof body.partnerId === 'string' ? body.partnerId : null,
  statusCode: error === null ? '00' : '10',
  errorCode: error?.errorCode ?? null,
  errorDesc: error?.errorDesc ?? null,
});

function createAnswer(sof: string): Canned['answer'] {
  return (body) => {
    const amount = parseTxnAmount(body.txnAmount);
    const satang = amount.ok ? amount.satang : 10_000n;
    const qrCode = buildBankQrPayload({
      billerId: SANDBOX_BILLER_ID,
      bankRef1: 'SIMSANDBOX01',
      bankRef2: 'SIMSANDBOX0001',
      satang,
    });
    return { ...echo(body), accountName: SANDBOX_ACCOUNT_NAME, qrCode, sof: [sof] };
  };
}

function inquiryAnswer(txnStatus: string): Canned['answer'] {
  const paid = txnStatus === 'PAID' || txnStatus === 'VOIDED';
  return (body) => ({
    ...echo(body),
    txnStatus,
    ...(paid && { txnNo: SANDBOX_TXN_NO }),
    merchantId: typeof body.merchantId === 'string' ? body.merchantId : SANDBOX_TEST_DATA.merchantId,
    ...CANNED_QR,
  });
}

const refused =
  (error: BankError): Canned['answer'] =>
  (body) =>
    echo(body, error);

const SCENARIOS: Record<string, Canned> = {
  QR002: { endpoint: 'request', answer: createAnswer('PP') },
  QR003: { endpoint: 'request', answer: createAnswer('CC') },
  QR004: { endpoint: 'inquiry', answer: inquiryAnswer('REQUESTED') },
  QR005: { endpoint: 'inquiry', answer: inquiryAnswer('CANCELLED') },
  QR006: { endpoint: 'inquiry', answer: inquiryAnswer('PAID') },
  QR007: { endpoint: 'inquiry', answer: inquiryAnswer('VOIDED') },
  QR008: { endpoint: 'cancel', answer: (body) => echo(body) },
  QR010: { endpoint: 'cancel', answer: refused(bankError('EMQRP')) },
  QR011: { endpoint: 'cancel', answer: refused(DEFAULT_PLACEHOLDER_ERRORS.cancelVoided) },
  QR012: { endpoint: 'void', answer: (body) => ({ ...echo(body), txnNo: SANDBOX_TXN_NO }) },
  QR013: { endpoint: 'void', answer: (body) => ({ ...echo(body), txnNo: SANDBOX_TXN_NO }) },
  QR014: { endpoint: 'void', answer: refused(DEFAULT_PLACEHOLDER_ERRORS.voidUnpaid) },
  QR015: { endpoint: 'void', answer: refused(bankError('EMSET')) },
  QR016: { endpoint: 'void', answer: refused(DEFAULT_PLACEHOLDER_ERRORS.voidOverTheDay) },
};

/** The endpoint a business scenario belongs to, or null for an env-id the sandbox does not know. */
export function scenarioEndpoint(envId: string): Endpoint | null {
  return Object.hasOwn(SCENARIOS, envId) ? SCENARIOS[envId]!.endpoint : null;
}

/** The canned answer of a business scenario (HTTP 200; EMBR when the body is not a JSON object). */
export function answerScenario(envId: string, rawBody: string): { status: number; body: string } {
  const scenario = SCENARIOS[envId];
  if (scenario === undefined) throw new Error(`no sandbox scenario ${envId}`);
  const body = parseJsonObject(rawBody);
  const answer =
    body === null
      ? { ...echo({}, bankError('EMBR')), ...(scenario.endpoint === 'request' && { accountName: null, qrCode: null }) }
      : scenario.answer(body);
  return { status: 200, body: toWireJson(answer) };
}
