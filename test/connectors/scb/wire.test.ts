// SCB's QR30 wire (connectors/scb/wire.ts, docs/connectors/scb.md): exact amounts both ways, ids,
// Bangkok times, the create body, and every answer parser checking what it reads — our biller id
// and ref1, THB, an exact amount — and refusing malformed answers; the payer as reported, masked
// or not; the confirmation read as a hint and answered with SCB's reply.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProcessorMismatch } from '../../../src/domain/processor-errors.ts';
import { buildThaiQrPayload, parseTlv, verifyThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import {
  amountText,
  bangkokDateTime,
  confirmationReply,
  derivedRef1,
  inquiryQuery,
  newRequestUId,
  parseConfirmation,
  parseCreateAnswer,
  parseEnvelope,
  parseInquiryRecords,
  parseToken,
  qrCreateBody,
  wireAmountToMinor,
  parseScbJson,
} from '../../../src/connectors/scb/wire.ts';

const BILLER = '123456789012345';
const REF1 = 'Q0ABCDEF1234567';

/** A paid record as SCB's inquiry lists it (the confirmation's fields). */
function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transactionId: '0a1b2c3d-0000-4000-8000-00000000abcd',
    amount: '1234.50',
    transactionDateandTime: '2026-01-05T10:03:12+07:00',
    currencyCode: '764',
    transactionType: 'Domestic Transfers',
    payeeProxyId: BILLER,
    payeeProxyType: 'BILLERID',
    payeeAccountNumber: '0987654321',
    payeeName: 'SHOP CO LTD',
    payerProxyId: '0123456789',
    payerProxyType: 'ACCOUNT',
    payerName: 'SOMCHAI JAIDEE',
    payerAccountNumber: '0123456789',
    billPaymentRef1: REF1,
    billPaymentRef2: 'REF2ABCDEFGHIJKLMNOP',
    billPaymentRef3: 'ABC',
    sendingBankCode: '004',
    receivingBankCode: '014',
    channelCode: 'PMH',
    ...overrides,
  };
}

const mismatch = (pattern: RegExp) => (error: unknown) =>
  error instanceof ProcessorMismatch && pattern.test(error.message);

describe('SCB wire: amounts', () => {
  test('a request amount is written with exactly two decimals; only whole satang above zero', () => {
    assert.equal(amountText(1_234_500n), '123.45');
    assert.equal(amountText(1_000_000n), '100.00');
    assert.equal(amountText(100n), '0.01');
    for (const bad of [0n, -100n, 150n]) assert.throws(() => amountText(bad), RangeError, String(bad));
  });

  test('an amount from SCB is exact: a decimal string or a plain JSON number by its own text, never a float', () => {
    assert.equal(wireAmountToMinor('1234.50'), 12_345_000n);
    assert.equal(wireAmountToMinor(' 100 '), 1_000_000n);
    assert.equal(wireAmountToMinor('0.1'), 1_000n);
    // 0.1 + 0.2 is not 0.3 in floating point; the text is.
    const parsed = parseScbJson('{"amount":90071992547409.93}')!;
    assert.equal(wireAmountToMinor(parsed.amount), 900_719_925_474_099_300n);
    for (const bad of ['100.005', '-1.00', '1e2', '1,000.00', '', 'abc', null, 100, {}])
      assert.equal(wireAmountToMinor(bad), null, JSON.stringify(bad));
  });
});

describe('SCB wire: ids and times', () => {
  test('requestUId: 32 letters and digits, new per call', () => {
    const ids = new Set(Array.from({ length: 200 }, newRequestUId));
    assert.equal(ids.size, 200);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9]{32}$/);
  });

  test('ref1 derived from the seed under the API secret: 15 of A-Z0-9, stable, unguessable without the secret', () => {
    const ref1 = derivedRef1('Q', 'secret', '0199c0de-0000-7000-8000-000000000001:1');
    assert.match(ref1, /^Q[A-Z0-9]{14}$/);
    assert.equal(derivedRef1('Q', 'secret', '0199c0de-0000-7000-8000-000000000001:1'), ref1);
    assert.notEqual(derivedRef1('Q', 'other secret', '0199c0de-0000-7000-8000-000000000001:1'), ref1);
    assert.notEqual(derivedRef1('Q', 'secret', '0199c0de-0000-7000-8000-000000000001:2'), ref1);
  });

  test('expiryDate: Bangkok wall-clock time to the second, cut and never rounded up', () => {
    assert.equal(bangkokDateTime(Date.parse('2026-01-05T03:15:30.999Z')), '2026-01-05 10:15:30');
    assert.equal(bangkokDateTime(Date.parse('2026-01-05T17:00:00Z')), '2026-01-06 00:00:00');
  });
});

describe('SCB wire: requests', () => {
  test('QR create v2: our biller id, the amount as text, three references, one use, an expiry', () => {
    const body = JSON.parse(
      qrCreateBody({
        billerId: BILLER,
        amountMinor: 1_234_500n,
        ref1: REF1,
        ref2: 'REF2ABCDEFGHIJKLMNOP',
        ref3: 'ABC',
        expiresAt: Date.parse('2026-01-05T03:15:00Z'),
      }),
    );
    assert.deepEqual(body, {
      qrType: 'PP',
      ppType: 'BILLERID',
      ppId: BILLER,
      amount: '123.45',
      ref1: REF1,
      ref2: 'REF2ABCDEFGHIJKLMNOP',
      ref3: 'ABC',
      numberOfTimes: 1,
      expiryDate: '2026-01-05 10:15:00',
    });
    for (const ref2 of ['lower', 'WITH-DASH', 'X'.repeat(21)])
      assert.throws(
        () => qrCreateBody({ billerId: BILLER, amountMinor: 100n, ref1: REF1, ref2, ref3: 'ABC', expiresAt: 0 }),
        /ref2 must be 1-20 of A-Z and 0-9/,
      );
  });

  test('the inquiry asks one Bangkok date for our biller id and ref1, as a bill payment', () => {
    const query = new URLSearchParams(inquiryQuery(BILLER, REF1, '2026-01-05'));
    assert.deepEqual(Object.fromEntries(query), {
      eventCode: '00300100',
      transactionDate: '2026-01-05',
      billerId: BILLER,
      reference1: REF1,
    });
  });

  test("the local QR: SCB's tag-30 shape with ref3 as the terminal label, verifiable", () => {
    const payload = buildThaiQrPayload({
      billerId: BILLER,
      reference1: REF1,
      reference2: 'REF2ABCDEFGHIJKLMNOP',
      amountMinor: 1_234_500n,
      terminalLabel: 'ABC',
    });
    const verified = verifyThaiQrPayload(payload);
    assert.ok(verified.ok, verified.errors.join('; '));
    assert.deepEqual(verified.billPayment, {
      '00': 'A000000677010112',
      '01': BILLER,
      '02': REF1,
      '03': 'REF2ABCDEFGHIJKLMNOP',
    });
    assert.deepEqual(parseTlv(verified.fields['62']!), [{ tag: '07', value: 'ABC' }]);
    assert.equal(verified.fields['54'], '123.45');
  });
});

describe('SCB wire: answers', () => {
  test('the envelope: a numeric status code and its description; anything else is no envelope', () => {
    assert.deepEqual(parseEnvelope('{"status":{"code":1000,"description":"Success"},"data":{"a":1}}')?.code, 1000);
    assert.deepEqual(parseEnvelope('{"status":{"code":"9300","description":"expired"}}'), {
      code: 9300,
      description: 'expired',
      data: null,
    });
    for (const bad of ['', 'null', '[]', '<html>', '{"status":"ok"}', '{"status":{"code":"x"}}', '{"code":1000}'])
      assert.equal(parseEnvelope(bad), null, bad);
  });

  test('the token: accessToken and expiresIn, or a mismatch', () => {
    const json = parseScbJson(
      '{"status":{"code":1000},"data":{"accessToken":"tok","tokenType":"Bearer","expiresIn":1800,"expiresAt":1}}',
    )!;
    assert.deepEqual(parseToken(json.data), { accessToken: 'tok', expiresInSeconds: 1800 });
    assert.equal(parseToken({ accessToken: 'tok', expiresIn: '900' }).expiresInSeconds, 900, 'as a string too');
    for (const bad of [null, {}, { accessToken: '', expiresIn: 1800 }, { accessToken: 'x', expiresIn: '30m' }])
      assert.throws(() => parseToken(bad), mismatch(/without accessToken and expiresIn/));
  });

  test('the create: qrRawData, or a mismatch', () => {
    assert.equal(parseCreateAnswer({ qrRawData: '000201', qrImage: 'iVBOR' }).qrRawData, '000201');
    for (const bad of [null, [], {}, { qrRawData: '' }, { qrImage: 'x' }])
      assert.throws(() => parseCreateAnswer(bad), mismatch(/sent no qrRawData/));
  });

  test('the inquiry: each paid record checked and read exactly, the payer as reported', () => {
    const [paid] = parseInquiryRecords([record()], { billerId: BILLER, ref1: REF1 });
    assert.deepEqual(paid, {
      transactionId: '0a1b2c3d-0000-4000-8000-00000000abcd',
      amountMinor: 12_345_000n,
      paidAt: Date.parse('2026-01-05T03:03:12Z'),
      billerId: BILLER,
      ref1: REF1,
      payer: { bankCode: '004', accountNumber: '0123456789', name: 'SOMCHAI JAIDEE' },
    });
    assert.deepEqual(parseInquiryRecords([], { billerId: BILLER, ref1: REF1 }), [], 'nothing paid');
    assert.deepEqual(parseInquiryRecords(null, { billerId: BILLER, ref1: REF1 }), []);
  });

  test('a masked account number is reported as it came; missing payer fields are null', () => {
    const [masked] = parseInquiryRecords([record({ payerAccountNumber: 'xxx-x-x3000-1' })], {
      billerId: BILLER,
      ref1: REF1,
    });
    assert.equal(masked!.payer.accountNumber, 'xxx-x-x3000-1');
    const [bare] = parseInquiryRecords(
      [record({ payerAccountNumber: undefined, payerName: '  ', sendingBankCode: null })],
      { billerId: BILLER, ref1: REF1 },
    );
    assert.deepEqual(bare!.payer, { bankCode: null, accountNumber: null, name: null });
  });

  test('malformed or foreign records are mismatches, never payments', () => {
    const expected = { billerId: BILLER, ref1: REF1 };
    const cases: [unknown, RegExp][] = [
      [{ records: [] }, /without a list of payments/],
      [[null], /not an object/],
      [[record({ transactionId: undefined })], /without a usable transactionId/],
      [[record({ transactionId: 'has spaces in it' })], /without a usable transactionId/],
      [[record({ payeeProxyId: '999999999999999' })], /to biller 999999999999999, not ours/],
      [[record({ billPaymentRef1: 'QOTHER' })], /for ref1 QOTHER, not Q0ABCDEF1234567/],
      [[record({ currencyCode: '840' })], /in currency 840, not 764/],
      [[record({ amount: '12.345' })], /amount that is not exact THB: "12.345"/],
      [[record({ amount: -5 })], /amount that is not exact THB: -5/],
      [[record({ amount: undefined })], /amount that is not exact THB/],
    ];
    for (const [data, pattern] of cases)
      assert.throws(() => parseInquiryRecords(data, expected), mismatch(pattern), String(pattern));
  });
});

describe('SCB wire: the confirmation', () => {
  const body = (fields: Record<string, unknown>) => Buffer.from(JSON.stringify(fields));

  test('a hint: the attempt (billPaymentRef1) and SCB transactionId', () => {
    assert.deepEqual(parseConfirmation(body(record()), 'application/json', { billerId: BILLER }), {
      ok: true,
      reference: REF1,
      processorTxnNo: '0a1b2c3d-0000-4000-8000-00000000abcd',
    });
    assert.deepEqual(
      parseConfirmation(body(record({ transactionId: undefined })), 'application/json; charset=utf-8', {
        billerId: BILLER,
      }),
      { ok: true, reference: REF1, processorTxnNo: null },
    );
  });

  test('what is not our confirmation is unreadable, with the reason, never thrown', () => {
    const cases: [Buffer, string | undefined, string][] = [
      [body(record()), 'text/plain', 'not application/json'],
      [Buffer.from('{"billPaymentRef1":'), 'application/json', 'not a JSON object'],
      [Buffer.from('[]'), 'application/json', 'not a JSON object'],
      [body(record({ billPaymentRef1: undefined })), 'application/json', 'no billPaymentRef1'],
      [body(record({ billPaymentRef1: 'q-lower' })), 'application/json', 'no billPaymentRef1'],
      [body(record({ payeeProxyId: '999999999999999' })), 'application/json', 'for biller 999999999999999'],
    ];
    for (const [raw, type, reason] of cases)
      assert.deepEqual(parseConfirmation(raw, type, { billerId: BILLER }), { ok: false, reason });
  });

  test("the reply SCB's documentation asks for", () => {
    assert.deepEqual(JSON.parse(confirmationReply('tx-1', 'ntf_1')), {
      resCode: '00',
      resDesc: 'success',
      transactionId: 'tx-1',
      confirmId: 'ntf_1',
    });
  });
});
