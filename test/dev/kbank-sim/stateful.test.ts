// The stateful model over real HTTP: create → inquiry → pay → inquiry; cancel and void in every
// state (§4.10); the 10-minute expiry, the void cut-off, the day boundary and settlement on the
// simulator's clock; EMDR on a reused partnerTxnUid; the validation order of §5.2; exact amounts;
// the QR text; determinism from the seed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim, type KbankSimOptions } from '../../../src/dev/kbank-sim/server.ts';
import { parseTlv, verifyThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import { SimClient, type HttpAnswer } from '../../support/kbank-sim-http.ts';

const MINUTE = 60_000;
const ENVELOPE = ['partnerTxnUid', 'partnerId', 'statusCode', 'errorCode', 'errorDesc'];

async function started(options: KbankSimOptions = {}): Promise<{ sim: KbankSim; client: SimClient }> {
  const sim = await startKbankSim(options);
  const client = new SimClient(sim);
  await client.token();
  return { sim, client };
}

function assertOk(answer: HttpAnswer): void {
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.statusCode, '00', answer.text);
  assert.equal(answer.json.errorCode, null);
  assert.equal(answer.json.errorDesc, null);
}

function assertRefused(answer: HttpAnswer, errorCode: string, errorDesc: string | RegExp): void {
  assert.equal(answer.status, 200, 'business errors are HTTP 200');
  assert.equal(answer.json.statusCode, '10', answer.text);
  assert.equal(answer.json.errorCode, errorCode, answer.text);
  if (typeof errorDesc === 'string') assert.equal(answer.json.errorDesc, errorDesc);
  else assert.match(answer.json.errorDesc, errorDesc);
}

/** Creates a QR and pays it; returns its uid. */
async function paidQr(client: SimClient, amountToken = '100.00'): Promise<string> {
  const uid = client.uid('Q');
  assertOk(await client.create(uid, amountToken));
  const paid = client.sim.pay(uid);
  assert.ok(paid.ok);
  return uid;
}

describe('kbank-sim stateful: one QR through its life', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => ({ sim, client } = await started()));
  after(() => sim?.close());

  test('create → REQUESTED → pay → PAID with a txnNo; the inquiry amount is the string "100.50"', async () => {
    const uid = client.uid('Q');
    const created = await client.create(uid, '100.50', { reference2: 'M123', reference3: null });
    assertOk(created);
    assert.deepEqual(Object.keys(created.json), [...ENVELOPE, 'accountName', 'qrCode', 'sof']);
    assert.equal(created.json.partnerTxnUid, uid);
    assert.equal(created.json.partnerId, sim.credentials.partnerId);
    assert.equal(created.json.accountName, 'KBANK SIM MERCHANT');
    assert.deepEqual(created.json.sof, ['PP']);

    const requested = await client.inquire(uid);
    assertOk(requested);
    assert.equal(requested.json.txnStatus, 'REQUESTED');
    assert.equal(requested.json.txnNo, undefined);
    assert.equal(requested.json.merchantId, sim.credentials.merchantId);
    assert.equal(requested.json.qrType, '3');
    assert.equal(requested.json.txnAmount, '100.50');
    assert.equal(requested.json.txnCurrencyCode, 'THB');
    assert.deepEqual(
      [requested.json.reference1, requested.json.reference2, requested.json.reference3, requested.json.reference4],
      ['REF1', 'M123', null, null],
    );
    assert.match(requested.json.partnerTxnUid, /^I/, 'the inquiry echoes its own request id');

    const paid = sim.pay(uid, '100.50', { loyaltyId: '00199100000' });
    assert.ok(paid.ok);
    assert.equal(paid.record.status, 'PAID');
    const inquiry = await client.inquire(uid);
    assert.equal(inquiry.json.txnStatus, 'PAID');
    assert.match(inquiry.json.txnNo, /^\d{20}$/);
    assert.equal(inquiry.json.txnNo, paid.record.txnNo);
    assert.equal(inquiry.json.loyaltyId, '00199100000');
    assert.equal(inquiry.json.txnAmount, '100.50');
  });

  test('the QR text is KBank’s layout, verifies, and tag 54 is the amount', async () => {
    const uid = client.uid('Q');
    const { qrCode } = (await client.create(uid, '1234.56')).json;
    const qr = verifyThaiQrPayload(qrCode);
    assert.ok(qr.ok, qr.errors.join('; '));
    assert.deepEqual(
      parseTlv(qrCode).map((f) => f.tag),
      ['00', '01', '30', '31', '53', '54', '58', '63'],
    );
    assert.equal(qr.fields['01'], '12', 'dynamic');
    assert.equal(qr.fields['53'], '764');
    assert.equal(qr.fields['54'], '1234.56');
    assert.equal(qr.fields['58'], 'TH');
    assert.equal(qr.fields['59'], undefined, 'no merchant name');
    assert.match(qr.billPayment['01']!, /^\d{13}$/, 'biller id');
    assert.match(qr.billPayment['02']!, /^SIM\d+$/);
    assert.match(qr.billPayment['03']!, /^SIM\d+$/);
    const tag31 = Object.fromEntries(parseTlv(qr.fields['31']!).map((f) => [f.tag, f.value]));
    assert.deepEqual(tag31, {
      '00': 'A000000677010113',
      '01': '004',
      '02': qr.billPayment['02'],
      '04': qr.billPayment['03'],
    });
    const record = sim.state().records.find((r) => r.partnerTxnUid === uid)!;
    assert.equal(record.qrCode, qrCode);
    assert.equal(record.amount, '1234.56');
  });

  test('EMDR: a partnerTxnUid is spent by any call that passed its check, and is never replayed', async () => {
    const uid = client.uid('Q');
    assertOk(await client.create(uid));
    const again = await client.create(uid);
    assertRefused(again, 'duplicate_request', 'This request is duplicated. (EMDR)');
    assert.equal(again.json.partnerTxnUid, uid);
    assert.equal(again.json.qrCode, null);
    assert.equal(again.json.accountName, null);
    // An inquiry may not reuse a create's id either.
    const inquiry = await client.call('/v1/qrpayment/v4/inquiry', { ...client.common(uid), origPartnerTxnUid: uid });
    assertRefused(inquiry, 'duplicate_request', /\(EMDR\)$/);
  });

  test('the request log keeps the body as sent (100.50 as a number token) with partnerSecret redacted', async () => {
    const uid = client.uid('Q');
    await client.create(uid, '100.50');
    const entry = sim
      .log()
      .requests.findLast((r) => r.path === '/v1/qrpayment/request' && (r.body as any).partnerTxnUid === uid)!;
    assert.match(entry.rawBody, /"txnAmount":100\.50\}$/);
    assert.equal((entry.body as any).partnerSecret, '<redacted>');
    assert.ok(!JSON.stringify(sim.log()).includes(sim.credentials.partnerSecret), 'the secret appears nowhere');
    assert.equal(entry.headers.authorization, 'Bearer <redacted>');
  });

  test('unknown origPartnerTxnUid: inquiry NOT_FOUND (statusCode 00), cancel and void EMITDNE', async () => {
    const inquiry = await client.inquire('NEVERCREATED001');
    assertOk(inquiry);
    assert.equal(inquiry.json.txnStatus, 'NOT_FOUND');
    assert.equal(inquiry.json.txnAmount, null);
    const exists = 'origPartnerTxnUid does not exist. (EMITDNE)';
    assertRefused(await client.cancel('NEVERCREATED001'), 'invalid_origPartnerTxnUid', exists);
    assertRefused(await client.void('NEVERCREATED001'), 'invalid_origPartnerTxnUid', exists);
  });
});

describe('kbank-sim stateful: the customer pays', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => ({ sim, client } = await started()));
  after(() => sim?.close());

  test('only the QR’s own amount, only once, only before expiry', async () => {
    const uid = client.uid('Q');
    await client.create(uid, '100.50');
    assert.deepEqual(sim.pay('NOSUCHQR0000001'), {
      ok: false,
      status: 404,
      reason: 'no QR was created with NOSUCHQR0000001',
    });
    const wrong = sim.pay(uid, '100.49');
    assert.ok(!wrong.ok && wrong.status === 409, 'a dynamic QR’s amount cannot be changed');
    assert.ok(sim.pay(uid, 100.5).ok);
    const twice = sim.pay(uid);
    assert.ok(!twice.ok && twice.status === 409);

    const late = client.uid('Q');
    await client.create(late);
    sim.advance(10 * MINUTE);
    const expired = sim.pay(late);
    assert.ok(!expired.ok && expired.status === 409 && /EXPIRED/.test(expired.reason));
  });
});

describe('kbank-sim stateful: the 10-minute expiry on the simulator clock', () => {
  test('REQUESTED until createdAt + 600 s, EXPIRED from then on; qrTtlSeconds changes it', async () => {
    const { sim, client } = await started();
    try {
      const uid = client.uid('Q');
      await client.create(uid);
      sim.advance(10 * MINUTE - 1);
      assert.equal((await client.inquire(uid)).json.txnStatus, 'REQUESTED');
      sim.advance(1);
      assert.equal((await client.inquire(uid)).json.txnStatus, 'EXPIRED');
      const record = sim.state().records[0]!;
      assert.equal(record.expiredAt, '2026-01-05T10:10:00.000+07:00');
    } finally {
      await sim.close();
    }
    const short = await started({ qrTtlSeconds: 60 });
    try {
      const uid = short.client.uid('Q');
      await short.client.create(uid);
      short.sim.advance(MINUTE);
      assert.equal((await short.client.inquire(uid)).json.txnStatus, 'EXPIRED');
    } finally {
      await short.sim.close();
    }
  });
});

describe('kbank-sim stateful: cancel in every state (§4.10)', () => {
  test('REQUESTED → CANCELLED; PAID, CANCELLED, EXPIRED, VOIDED and unknown are refused', async () => {
    const { sim, client } = await started();
    try {
      const expired = client.uid('Q');
      await client.create(expired);
      sim.advance(10 * MINUTE);
      const requested = client.uid('Q');
      await client.create(requested);
      const paid = await paidQr(client);
      const cancelled = client.uid('Q');
      await client.create(cancelled);
      assertOk(await client.cancel(cancelled));
      const voided = await paidQr(client);
      assertOk(await client.void(voided));

      const answer = await client.cancel(requested);
      assertOk(answer);
      assert.deepEqual(Object.keys(answer.json), ENVELOPE, 'a cancel answers the envelope only');
      assert.equal((await client.inquire(requested)).json.txnStatus, 'CANCELLED');
      assertRefused(await client.cancel(paid), 'qr_paid', 'QR already paid. (EMQRP)');
      assertRefused(await client.cancel(cancelled), 'qr_cancelled', 'QR is cancelled. (EMQRC)');
      assertRefused(await client.cancel(expired), 'qr_expired', 'QR has expired. (EMQRE)');
      assertRefused(await client.cancel(voided), 'qr_void', /\(SIM[A-Z]+\)$/);
      assert.equal((await client.inquire(paid)).json.txnStatus, 'PAID', 'a refused cancel changes nothing');
      assert.equal(sim.pay(requested).ok, false, 'a cancelled QR cannot be paid');
    } finally {
      await sim.close();
    }
  });
});

describe('kbank-sim stateful: void (the refund)', () => {
  test('PAID today before the cut-off, unsettled → VOIDED with the payment’s txnNo', async () => {
    const { sim, client } = await started();
    try {
      const uid = await paidQr(client);
      const answer = await client.void(uid);
      assertOk(answer);
      assert.deepEqual(Object.keys(answer.json), [...ENVELOPE, 'txnNo']);
      const inquiry = await client.inquire(uid);
      assert.equal(inquiry.json.txnStatus, 'VOIDED');
      assert.equal(answer.json.txnNo, inquiry.json.txnNo);
      assertRefused(await client.void(uid), 'qr_void', /\(SIM[A-Z]+\)$/);
    } finally {
      await sim.close();
    }
  });

  test('not paid: REQUESTED, CANCELLED and EXPIRED QRs are refused', async () => {
    const { sim, client } = await started();
    try {
      const expired = client.uid('Q');
      await client.create(expired);
      sim.advance(10 * MINUTE);
      const requested = client.uid('Q');
      await client.create(requested);
      const cancelled = client.uid('Q');
      await client.create(cancelled);
      await client.cancel(cancelled);
      assertRefused(await client.void(requested), 'invalid_origPartnerTxnUid', /\(EMITDNE\)$/);
      assertRefused(await client.void(cancelled), 'qr_cancelled', /\(EMQRC\)$/);
      assertRefused(await client.void(expired), 'qr_expired', /\(EMQRE\)$/);
    } finally {
      await sim.close();
    }
  });

  test('at or after the void cut-off (Asia/Bangkok) on the day of payment → refused', async () => {
    const { sim, client } = await started({ voidCutoff: '21:30' });
    try {
      const before = await paidQr(client);
      const at = await paidQr(client);
      sim.setClock('2026-01-05T21:29:59.999+07:00');
      await client.token(); // the clock moved past the old token's 30 minutes
      assertOk(await client.void(before));
      sim.setClock('2026-01-05T14:30:00Z'); // 21:30 in Bangkok
      assertRefused(await client.void(at), 'general_error', /cut-off.*\(EMG\)$/);
      assert.equal((await client.inquire(at)).json.txnStatus, 'PAID');
    } finally {
      await sim.close();
    }
  });

  test('a payment of a previous day, not settled → refused (over the day)', async () => {
    const { sim, client } = await started({ autoSettleAt: null });
    try {
      const uid = await paidQr(client);
      sim.setClock('2026-01-06T00:30:00+07:00');
      await client.token();
      assertRefused(await client.void(uid), 'general_error', 'Transaction is over the day. (EMG)');
      assert.equal(sim.state().records[0]!.settled, false);
    } finally {
      await sim.close();
    }
  });

  test('settled by the automatic end-of-day settlement (23:00 default) → settlement_error EMSET', async () => {
    const { sim, client } = await started();
    try {
      const uid = await paidQr(client);
      sim.setClock('2026-01-05T22:59:59.999+07:00');
      assert.equal(sim.state().records[0]!.settled, false);
      sim.advance(1);
      assert.equal(sim.state().records[0]!.settledAt, '2026-01-05T23:00:00.000+07:00');
      await client.token();
      assertRefused(await client.void(uid), 'settlement_error', 'Transaction is already settled (EMSET)');
      sim.setClock('2026-01-06T09:00:00+07:00');
      await client.token();
      assertRefused(await client.void(uid), 'settlement_error', /\(EMSET\)$/); // the next day too
    } finally {
      await sim.close();
    }
  });

  test('settled by the settlement call (or /__sim/settle) → EMSET', async () => {
    const { sim, client } = await started();
    try {
      const viaApi = await paidQr(client);
      const answer = await client.call('/v1/qrpayment/settlement', {
        ...client.common(client.uid('S')),
        terminalId: 'T0000001',
        qrType: '3',
      });
      assertOk(answer);
      assertRefused(await client.void(viaApi), 'settlement_error', /\(EMSET\)$/);
      const viaControl = await paidQr(client);
      assert.deepEqual(sim.settle(), { count: 1, amount: '100.00', partnerTxnUids: [viaControl] });
      assertRefused(await client.void(viaControl), 'settlement_error', /\(EMSET\)$/);
    } finally {
      await sim.close();
    }
  });
});

describe('kbank-sim stateful: settlement', () => {
  test('sums the unsettled payments as a 2-decimal number; terminalId required; not 22:00–02:30', async () => {
    const { sim, client } = await started();
    try {
      await paidQr(client, '100.50');
      await paidQr(client, '100.00');
      const voided = await paidQr(client, '7.00');
      await client.void(voided);
      const settle = (uid: string, terminalId?: string) =>
        client.call('/v1/qrpayment/settlement', { ...client.common(uid), ...(terminalId && { terminalId }) });
      assertRefused(await settle(client.uid('S')), 'bad_request', 'Invalid terminalId. (EMBR)');
      const answer = await settle(client.uid('S'), 'T0000001');
      assertOk(answer);
      assert.match(answer.text, /"settlementAmount":200\.50,/);
      assert.equal(answer.json.settlementCurrencyCode, 'THB');
      assert.match(answer.json.accountNo, /^X+\d{4}$/);
      assert.equal(answer.json.accountName, 'KBANK SIM MERCHANT');
      assert.match((await settle(client.uid('S'), 'T0000001')).text, /"settlementAmount":0\.00,/, 'nothing left');
      for (const at of ['2026-01-05T22:00:00+07:00', '2026-01-06T02:29:00+07:00']) {
        sim.setClock(at);
        await client.token();
        assertRefused(
          await settle(client.uid('S'), 'T0000001'),
          'settlement_error',
          'Manual settlement is not allow between 22:00 - 02:30 (EMSMSG)',
        );
      }
      sim.setClock('2026-01-06T02:30:00+07:00');
      assertOk(await settle(client.uid('S'), 'T0000001'));
    } finally {
      await sim.close();
    }
  });
});

describe('kbank-sim stateful: validation in the order of §5.2', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(
    async () =>
      ({ sim, client } = await started({
        partners: {
          PTR0000001: { secret: 'a'.repeat(32), merchantIds: ['KB000000000001'] },
          PTR0000002: { secret: 'b'.repeat(32), merchantIds: ['KB000000000002'] },
        },
      })),
  );
  after(() => sim?.close());

  test('each rule is reported only once every earlier rule holds', async () => {
    const body: Record<string, unknown> = {
      partnerTxnUid: 'not valid!',
      partnerId: 'PTR9999999',
      partnerSecret: 'wrong',
      requestDt: 'yesterday',
      merchantId: 'KB000000000002',
      qrType: '1',
      txnAmount: 0,
      txnCurrencyCode: 'USD',
      reference1: '',
    };
    const create = () => client.call('/v1/qrpayment/request', body);
    const steps: Array<[() => void, string, string]> = [
      [() => {}, 'authentication_error', 'Wrong partner key. (EMA)'],
      [() => (body.partnerId = 'PTR0000001'), 'authentication_error', 'Wrong partner key. (EMA)'],
      [() => (body.partnerSecret = 'a'.repeat(32)), 'authentication_error', 'Miss match partner id and mid. (EMPM)'],
      [() => (body.merchantId = 'KB999999999999'), 'invalid_merchant', 'Merchant ID does not exist. (EMDNE)'],
      [() => (body.merchantId = 'KB000000000001'), 'bad_request', 'Invalid partnerTxnUid. (EMBR)'],
      [() => (body.partnerTxnUid = 'abcdefghijklmno'), 'bad_request', 'Invalid partnerTxnUid. (EMBR)'],
      [() => (body.partnerTxnUid = 'A1234567890123456'), 'bad_request', 'Invalid partnerTxnUid. (EMBR)'],
      [() => (body.partnerTxnUid = 'U00000000000001'), 'bad_request', 'Invalid requestDt. (EMBR)'],
      [() => (body.requestDt = '2026-01-05T10:00:00Z'), 'duplicate_request', 'This request is duplicated. (EMDR)'],
      [() => (body.partnerTxnUid = 'U00000000000002'), 'invalid_qr_type', 'QR Type 1 is not allowed. (EMIQR)'],
      [
        () => ((body.partnerTxnUid = 'U00000000000003'), (body.qrType = '3')),
        'invalid_currency_code',
        'Currency code USD is not allowed. (EMICC)',
      ],
      [
        () => ((body.partnerTxnUid = 'U00000000000004'), (body.txnCurrencyCode = 'THB')),
        'invalid_txn_amount',
        'Invalid Amount. (EMITA)',
      ],
      [
        () => ((body.partnerTxnUid = 'U00000000000005'), (body.txnAmount = 1.001)),
        'invalid_txn_amount',
        'Amount must be an integer with two digits precision. (EMITF)',
      ],
      [
        () => ((body.partnerTxnUid = 'U00000000000006'), (body.txnAmount = 1)),
        'invalid_reference1',
        'reference1 must not be empty. (EMIR)',
      ],
    ];
    const notJson = await client.call('/v1/qrpayment/request', '{"partnerTxnUid": "U0000000000000');
    assertRefused(notJson, 'bad_request', 'Invalid JSON. (EMBR)');
    assert.equal(notJson.json.partnerTxnUid, null);
    for (const [fix, errorCode, errorDesc] of steps) {
      fix();
      const answer = await create();
      assertRefused(answer, errorCode, errorDesc);
      assert.equal(answer.json.qrCode, null);
      assert.equal(answer.json.accountName, null);
      assert.equal(answer.json.partnerTxnUid, body.partnerTxnUid, 'the request id is echoed, even when refused');
    }
    body.partnerTxnUid = 'U00000000000007';
    body.reference1 = 'INV001';
    assertOk(await create());
  });

  test('the same order holds for inquiry, cancel and void: credentials before the id, then the id', async () => {
    for (const path of ['/v1/qrpayment/v4/inquiry', '/v1/qrpayment/cancel', '/v1/qrpayment/void']) {
      const body = {
        partnerTxnUid: 'bad',
        partnerId: 'PTR0000001',
        partnerSecret: 'x',
        requestDt: '2026-01-05T10:00:00+07:00',
        merchantId: 'KB000000000001',
        origPartnerTxnUid: 'U00000000000007',
      };
      assertRefused(await client.call(path, body), 'authentication_error', /\(EMA\)$/);
      body.partnerSecret = 'a'.repeat(32);
      assertRefused(await client.call(path, body), 'bad_request', /partnerTxnUid/);
    }
  });

  test("another merchant's QR is unknown to an inquiry (NOT_FOUND) (a shop of another partner)", async () => {
    const answer = await client.call('/v1/qrpayment/v4/inquiry', {
      partnerTxnUid: 'U00000000000100',
      partnerId: 'PTR0000002',
      partnerSecret: 'b'.repeat(32),
      requestDt: '2026-01-05T10:00:00+07:00',
      merchantId: 'KB000000000002',
      origPartnerTxnUid: 'U00000000000007',
    });
    assertOk(answer);
    assert.equal(answer.json.txnStatus, 'NOT_FOUND');
  });
});

describe('kbank-sim stateful: amounts are read exactly', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => ({ sim, client } = await started()));
  after(() => sim?.close());

  const accepted: Array<[string, string]> = [
    ['100.5', '100.50'],
    ['100.50', '100.50'],
    ['0.01', '0.01'],
    ['1E2', '100.00'],
    ['9999999999.99', '9999999999.99'],
    ['0.1', '0.10'],
  ];
  for (const [token, text] of accepted) {
    test(`txnAmount ${token} → ${text} (tag 54 and the inquiry)`, async () => {
      const uid = client.uid('Q');
      const created = await client.create(uid, token);
      assertOk(created);
      assert.equal(verifyThaiQrPayload(created.json.qrCode).fields['54'], text);
      assert.equal((await client.inquire(uid)).json.txnAmount, text);
    });
  }

  const refused: Array<[string, string]> = [
    ['0', 'EMITA'],
    ['-1.00', 'EMITA'],
    ['"100.00"', 'EMITA'],
    ['null', 'EMITA'],
    ['10000000000.00', 'EMITA'],
    ['1e21', 'EMITA'],
    ['1.005', 'EMITF'],
    ['100.123', 'EMITF'],
    ['1e-7', 'EMITF'],
  ];
  for (const [token, code] of refused) {
    test(`txnAmount ${token} → ${code}`, async () => {
      const answer = await client.create(client.uid('Q'), token);
      assertRefused(answer, 'invalid_txn_amount', new RegExp(`\\(${code}\\)$`));
    });
  }
});

describe('kbank-sim stateful: options for what KBank does not publish', () => {
  test('unknownInquiry: EMITDNE answers an unknown origPartnerTxnUid with invalid_origPartnerTxnUid', async () => {
    const { sim, client } = await started({ unknownInquiry: 'EMITDNE' });
    try {
      assertRefused(await client.inquire('NEVERCREATED001'), 'invalid_origPartnerTxnUid', /\(EMITDNE\)$/);
    } finally {
      await sim.close();
    }
  });

  test('partnerTxnUidPattern and placeholderErrors can be changed', async () => {
    const { sim, client } = await started({
      partnerTxnUidPattern: /^[A-Za-z0-9-]{1,20}$/,
      placeholderErrors: { voidUnpaid: { errorCode: 'qr_unpaid', errorDesc: 'QR is not paid. (SIMUNPAID)' } },
    });
    try {
      assertOk(await client.create('PARTNERTEST0001-2'));
      assertRefused(await client.void('PARTNERTEST0001-2'), 'qr_unpaid', 'QR is not paid. (SIMUNPAID)');
    } finally {
      await sim.close();
    }
  });
});

describe('kbank-sim: deterministic from its seed', () => {
  async function run(seed: string): Promise<unknown[]> {
    const { sim, client } = await started({ seed });
    try {
      const uid = await paidQr(client);
      const state = sim.state().records[0]!;
      return [sim.credentials, client.accessToken, uid, state.txnNo, state.qrCode];
    } finally {
      await sim.close();
    }
  }

  test('the same seed gives the same credentials, tokens, txnNos and QRs; another seed does not', async () => {
    const [a, b, c] = [await run('s1'), await run('s1'), await run('s2')];
    assert.deepEqual(a, b);
    assert.notDeepEqual(a[0], c[0]);
    assert.notEqual(a[1], c[1]);
    assert.notEqual(a[3], c[3]);
  });
});
