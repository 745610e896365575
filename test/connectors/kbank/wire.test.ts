// connectors/kbank/wire.ts: exact amounts both ways, request ids, KBank's error codes, the status
// mapping, and every answer that does not match what we asked is refused (ProcessorMismatch).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProcessorMismatch } from '../../../src/domain/processor-errors.ts';
import {
  CALLBACK_ANSWER,
  derivedTxnUid,
  internalCode,
  JsonNumber,
  parseBankJson,
  parseCallback,
  parseCancelAnswer,
  parseInquiryAnswer,
  parseQrAnswer,
  parseToken,
  parseVoidAnswer,
  qrRequestBody,
  randomTxnUid,
  readEnvelope,
  referringBody,
  requestDt,
  stateOf,
  txnAmountToken,
  wireAmountToMinor,
  type Partner,
} from '../../../src/connectors/kbank/wire.ts';

const PARTNER: Partner = {
  partnerId: 'PTR1051673',
  partnerSecret: 'd4bded59200547bc85903574a293831b',
  merchantId: 'KB102057149704',
  terminalId: null,
};
const AT = Date.parse('2026-01-05T03:15:30.250Z');
const UID = 'I0000000000000A';
const expected = { partnerTxnUid: UID, partnerId: PARTNER.partnerId };

const mismatch = (error: unknown) => error instanceof ProcessorMismatch;

describe('amounts', () => {
  test('a request amount is a number token with exactly two decimals, from whole satang', () => {
    for (const [minor, token] of [
      [1_005_000n, '100.50'],
      [1_000_000n, '100.00'],
      [100n, '0.01'],
      [12_345_600n, '1234.56'],
      [99_999_999_999_900n, '9999999999.99'],
    ] as const) {
      assert.equal(txnAmountToken(minor).text, token);
    }
    for (const bad of [0n, -100n, 50n, 1_005_050n]) assert.throws(() => txnAmountToken(bad), RangeError, String(bad));
  });

  test('the create body carries the token as written, which JSON.stringify could not', () => {
    const body = qrRequestBody(
      PARTNER,
      { partnerTxnUid: 'Q00000000000001', amountMinor: 1_005_000n, reference1: 'REF1', reference2: 'M1' },
      AT,
    );
    assert.match(body, /"txnAmount":100\.50,/);
    assert.doesNotMatch(body, /"terminalId"/, 'no terminalId unless configured');
    const parsed = JSON.parse(body);
    assert.equal(parsed.qrType, '3');
    assert.equal(parsed.txnCurrencyCode, 'THB');
    assert.equal(parsed.requestDt, '2026-01-05T10:15:30+07:00');
    assert.equal(parsed.reference3, null);
    const withTerminal = qrRequestBody(
      { ...PARTNER, terminalId: 'T0000001' },
      { partnerTxnUid: 'Q00000000000001', amountMinor: 100n, reference1: 'R', reference2: null },
      AT,
    );
    assert.equal(JSON.parse(withTerminal).terminalId, 'T0000001');
    assert.match(withTerminal, /"txnAmount":0\.01,/);
  });

  test('the inquiry, cancel and void body names the original QR', () => {
    const body = JSON.parse(referringBody(PARTNER, UID, 'Q00000000000001', AT));
    assert.deepEqual(Object.keys(body), [
      'partnerTxnUid',
      'partnerId',
      'partnerSecret',
      'requestDt',
      'merchantId',
      'origPartnerTxnUid',
    ]);
  });

  test('bank amounts are read from their decimal text, exactly, in 1/10,000 THB', () => {
    const cases: Array<[unknown, bigint | null]> = [
      ['100.00', 1_000_000n],
      ['100.5', 1_005_000n],
      [' 7.25 ', 72_500n],
      ['0', 0n],
      [new JsonNumber('100.5'), 1_005_000n],
      [new JsonNumber('100.50'), 1_005_000n],
      [new JsonNumber('1.005e2'), 1_005_000n],
      [new JsonNumber('1E2'), 1_000_000n],
      [new JsonNumber('12345678.99'), 123_456_789_900n],
      [new JsonNumber('5e-3'), null],
      [new JsonNumber('0.30000000000000004'), null],
      ['100.505', null],
      ['1e2', null],
      ['-1.00', null],
      ['1,000.00', null],
      ['', null],
      [100.5, null], // a float that did not come through parseBankJson: its text is not known
      [null, null],
    ];
    for (const [value, minor] of cases) assert.equal(wireAmountToMinor(value), minor, String(value));
  });

  test('parseBankJson keeps each number as the bank wrote it', () => {
    const body = parseBankJson('{"a":100.50,"b":[1.005e2],"c":{"d":12345678.91},"e":"1.10"}')!;
    assert.equal((body.a as JsonNumber).text, '100.50');
    assert.equal(((body.b as unknown[])[0] as JsonNumber).text, '1.005e2');
    assert.equal(((body.c as Record<string, JsonNumber>).d as JsonNumber).text, '12345678.91');
    assert.equal(body.e, '1.10');
    for (const notObject of ['[]', '1', 'null', '"x"', '{"a":', '']) assert.equal(parseBankJson(notObject), null);
  });
});

describe('ids and times', () => {
  test('QR and void ids: the letter and 14 base-36 characters of an HMAC of the seed, the same every time', () => {
    const q = derivedTxnUid('Q', PARTNER.partnerSecret, 'tx:1');
    assert.match(q, /^Q[0-9A-Z]{14}$/);
    assert.equal(derivedTxnUid('Q', PARTNER.partnerSecret, 'tx:1'), q);
    assert.notEqual(derivedTxnUid('Q', PARTNER.partnerSecret, 'tx:2'), q);
    assert.notEqual(derivedTxnUid('Q', 'another secret', 'tx:1'), q, 'keyed by the partner secret');
    assert.match(derivedTxnUid('V', PARTNER.partnerSecret, 'rfd_1:1'), /^V[0-9A-Z]{14}$/);
  });

  test('inquiry and cancel ids are new every time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = randomTxnUid(i % 2 === 0 ? 'I' : 'C');
      assert.match(id, /^[IC][0-9A-Z]{14}$/);
      seen.add(id);
    }
    assert.equal(seen.size, 1000);
  });

  test('requestDt is Bangkok time with its offset', () => {
    assert.equal(requestDt(AT), '2026-01-05T10:15:30+07:00');
    assert.equal(requestDt(Date.parse('2026-01-05T17:00:00Z')), '2026-01-06T00:00:00+07:00');
  });
});

describe('answers', () => {
  test('errorDesc: the internal code in its closing parentheses', () => {
    assert.equal(internalCode('QR already paid. (EMQRP)'), 'EMQRP');
    assert.equal(internalCode('Transaction is already settled (EMSET)'), 'EMSET');
    assert.equal(internalCode('Manual settlement is not allow between 22:00 - 02:30 (EMSMSG)  '), 'EMSMSG');
    assert.equal(internalCode('QR is voided. (SIMQRV)'), 'SIMQRV');
    assert.equal(internalCode('Invalid (EMBR) request'), null);
    assert.equal(internalCode('no code'), null);
    assert.equal(internalCode(null), null);
  });

  test('a refusal: statusCode 10 with errorCode, errorDesc and its code', () => {
    const answer = parseCancelAnswer(
      { ...expected, statusCode: '10', errorCode: 'qr_paid', errorDesc: 'QR already paid. (EMQRP)' },
      expected,
    );
    assert.deepEqual(answer, {
      ok: false,
      error: { errorCode: 'qr_paid', errorDesc: 'QR already paid. (EMQRP)', code: 'EMQRP' },
    });
    // A refusal of a request KBank could not read may leave the ids out.
    const unread = readEnvelope(
      { statusCode: '10', errorCode: 'bad_request', errorDesc: 'Invalid JSON. (EMBR)' },
      expected,
    );
    assert.equal(unread.ok, false);
  });

  test("every answer must echo our request's id and our partner id", () => {
    for (const body of [
      { partnerTxnUid: 'I0000000000000B', partnerId: PARTNER.partnerId, statusCode: '00' },
      { partnerTxnUid: UID, partnerId: 'PTR9999999', statusCode: '00' },
      { partnerId: PARTNER.partnerId, statusCode: '00' },
      { partnerTxnUid: 'I0000000000000B', partnerId: PARTNER.partnerId, statusCode: '10', errorCode: 'x' },
      { ...expected, statusCode: '99' },
      { ...expected },
    ]) {
      assert.throws(() => readEnvelope(body, expected), mismatch, JSON.stringify(body));
    }
  });

  test('txnStatus maps onto the port', () => {
    assert.deepEqual((['REQUESTED', 'PAID', 'CANCELLED', 'EXPIRED', 'VOIDED', 'NOT_FOUND'] as const).map(stateOf), [
      'requested',
      'paid',
      'cancelled',
      'expired',
      'voided',
      'not_found',
    ]);
  });

  const inquiry = (fields: Record<string, unknown>) =>
    parseBankJson(JSON.stringify({ ...expected, statusCode: '00', errorCode: null, errorDesc: null, ...fields }))!;
  const ours = { ...expected, merchantId: PARTNER.merchantId };
  const paidFields = {
    txnStatus: 'PAID',
    txnNo: '20260105000000000001',
    merchantId: PARTNER.merchantId,
    qrType: '3',
    txnAmount: '123.45',
    txnCurrencyCode: 'THB',
  };

  test('an inquiry: status, txnNo, the exact amount (a string at KBank), currency, merchant', () => {
    const answer = parseInquiryAnswer(inquiry(paidFields), ours);
    assert.deepEqual(answer, {
      ok: true,
      value: {
        txnStatus: 'PAID',
        txnNo: '20260105000000000001',
        amountMinor: 1_234_500n,
        currency: 'THB',
        merchantId: PARTNER.merchantId,
      },
    });
    const notFound = parseInquiryAnswer(
      inquiry({ txnStatus: 'NOT_FOUND', merchantId: PARTNER.merchantId, txnAmount: null, txnCurrencyCode: null }),
      ours,
    );
    assert.equal(notFound.ok && notFound.value.amountMinor, null);
  });

  test('an inquiry that is not about our merchant, in THB, for an exact amount, in a known state, is refused', () => {
    for (const fields of [
      { ...paidFields, merchantId: 'KB000000000001' },
      { ...paidFields, merchantId: undefined },
      { ...paidFields, txnCurrencyCode: 'USD' },
      { ...paidFields, txnCurrencyCode: undefined },
      { ...paidFields, txnAmount: '123.456' },
      { ...paidFields, txnAmount: 'lots' },
      { ...paidFields, txnAmount: undefined },
      { ...paidFields, txnStatus: 'SETTLED' },
      { ...paidFields, txnStatus: undefined },
    ]) {
      assert.throws(() => parseInquiryAnswer(inquiry(fields), ours), mismatch, JSON.stringify(fields));
    }
  });

  test('a created QR must carry its qrCode; a void its txnNo when KBank sends one', () => {
    const ok = { ...expected, statusCode: '00', errorCode: null, errorDesc: null };
    assert.deepEqual(parseQrAnswer({ ...ok, qrCode: '0002', accountName: 'Shop' }, expected), {
      ok: true,
      value: { qrCode: '0002', accountName: 'Shop' },
    });
    assert.throws(() => parseQrAnswer({ ...ok, qrCode: null }, expected), mismatch);
    assert.deepEqual(parseVoidAnswer({ ...ok, txnNo: '42' }, expected), { ok: true, value: { txnNo: '42' } });
    assert.deepEqual(parseVoidAnswer(ok, expected), { ok: true, value: { txnNo: null } });
  });

  test('the token: access_token and expires_in (a string at KBank, a number accepted)', () => {
    assert.deepEqual(parseToken(parseBankJson('{"access_token":"abc","expires_in":"1799"}')!), {
      accessToken: 'abc',
      expiresInSeconds: 1799,
    });
    assert.equal(parseToken(parseBankJson('{"access_token":"abc","expires_in":600}')!).expiresInSeconds, 600);
    for (const body of ['{"expires_in":"1799"}', '{"access_token":"abc"}', '{"access_token":"","expires_in":"1"}'])
      assert.throws(() => parseToken(parseBankJson(body)!), mismatch, body);
  });
});

describe('the callback', () => {
  const ours = { partnerId: 'POS001', merchantId: 'BEV06000080200' };
  // The example of KBank's payment callback documentation.
  const example =
    '{"partnerTxnUid":"QRH001030118001","partnerId":"POS001","statusCode":"00","errorCode":null,' +
    '"errorDesc":null,"merchantId":"BEV06000080200","txnAmount":100.5,"txnCurrencyCode":"THB",' +
    '"loyaltyId":"00199100000","txnNo":"201802080035496","additionalInfo":"x"}';

  test("KBank's example is a hint naming the QR and the payment", () => {
    assert.deepEqual(parseCallback(Buffer.from(example), 'application/json; charset=UTF-8', ours), {
      ok: true,
      reference: 'QRH001030118001',
      processorTxnNo: '201802080035496',
    });
  });

  test('what is not ours or not readable is no hint', () => {
    const cases: Array<[string, string | undefined]> = [
      [example, 'text/plain'],
      [example, undefined],
      [example.slice(0, 40), 'application/json'],
      ['[]', 'application/json'],
      [example.replace('"POS001"', '"OTHER01"'), 'application/json'],
      [example.replace('"BEV06000080200"', '"KB000000000001"'), 'application/json'],
      [example.replace('"QRH001030118001"', '"<script>"'), 'application/json'],
      [example.replace('"partnerTxnUid":"QRH001030118001",', ''), 'application/json'],
    ];
    for (const [body, type] of cases) assert.equal(parseCallback(Buffer.from(body), type, ours).ok, false, body);
  });

  test('our answer is the envelope KBank documents', () => {
    assert.deepEqual(JSON.parse(CALLBACK_ANSWER), { statusCode: '00', errorCode: null, errorDesc: null });
  });
});
