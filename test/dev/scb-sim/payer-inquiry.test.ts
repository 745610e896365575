// The payer side and what the bank reports of a payment, over real HTTP (docs/connectors/scb-sim.md
// "The payer side", "The faithful surface"): the customer pays a QR by ref1 or by its qrRawData,
// from an account, name and bank of their choice; a v2 QR refuses a payment after its expiryDate
// or after numberOfTimes payments; a QR's amount cannot be changed. The inquiry finds only paid
// transactions, on the Bangkok date they were paid; the slip shows one; the payer may be masked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { request, ScbClient } from '../../support/scb-sim-http.ts';

const RECORD_KEYS = [
  'transactionId',
  'amount',
  'transactionDateandTime',
  'currencyCode',
  'transactionType',
  'payeeProxyId',
  'payeeProxyType',
  'payeeAccountNumber',
  'payeeName',
  'payerProxyId',
  'payerProxyType',
  'payerName',
  'payerAccountNumber',
  'billPaymentRef1',
  'billPaymentRef2',
  'billPaymentRef3',
  'sendingBankCode',
  'receivingBankCode',
  'channelCode',
];

describe('scb-sim payer side and inquiry', () => {
  let sim: ScbSim;
  let client: ScbClient;
  before(async () => {
    // 00:30 in Bangkok is still the previous day in UTC: a date taken in UTC would be wrong.
    sim = await startScbSim({ now: '2026-01-06T00:30:00+07:00' });
    client = new ScbClient(sim);
    await client.token();
  });
  after(() => sim?.close());

  async function qr(ref1: string, extra: Record<string, unknown> = {}, version: 'v1' | 'v2' = 'v1') {
    const answer = await client.create(version, client.qrBody(ref1, extra));
    assert.equal(answer.status, 200, answer.text);
    return answer.json.data.qrRawData as string;
  }

  test('unpaid: the inquiry answers 200 1000 with data []', async () => {
    await qr('UNPAID1');
    const answer = await client.inquire({ reference1: 'UNPAID1', transactionDate: '2026-01-06' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, { status: { code: 1000, description: 'Success' }, data: [] });
  });

  test('paid by ref1 with the defaults: found on the Bangkok date of payment only, with the payer', async () => {
    await qr('PAID1', { amount: '250.75' });
    const paid = sim.pay({ ref1: 'PAID1' });
    assert.ok(paid.ok);
    for (const date of ['2026-01-05', '2026-01-07'])
      assert.deepEqual((await client.inquire({ reference1: 'PAID1', transactionDate: date })).json.data, [], date);
    const answer = await client.inquire({ reference1: 'PAID1', transactionDate: '2026-01-06' });
    assert.equal(answer.json.data.length, 1, answer.text);
    const record = answer.json.data[0];
    assert.deepEqual(Object.keys(record), RECORD_KEYS);
    assert.equal(record.transactionId, paid.payment.transactionId);
    assert.equal(record.amount, '250.75');
    assert.equal(record.transactionDateandTime, '2026-01-06T00:30:00+07:00');
    assert.equal(record.payeeProxyId, sim.credentials.billerId);
    assert.equal(record.billPaymentRef1, 'PAID1');
    assert.equal(record.billPaymentRef2, 'REF2');
    assert.equal(record.billPaymentRef3, `${sim.credentials.ref3Prefix}GW`);
    assert.equal(record.payerAccountNumber, '1502830001');
    assert.equal(record.payerProxyId, '1502830001');
    assert.equal(record.payerProxyType, 'ACCOUNT');
    assert.equal(record.sendingBankCode, '014');
    assert.equal(record.receivingBankCode, '014');
    assert.equal(record.currencyCode, '764');
    // The slip shows the same record; another sending bank does not find it.
    const slip = await client.slip(record.transactionId);
    assert.equal(slip.status, 200, slip.text);
    assert.deepEqual(slip.json.data, record);
    assert.equal((await client.slip(record.transactionId, '004')).json.status.code, 1104);
    assert.equal((await client.slip('no-such-id')).status, 404);
  });

  test('the inquiry filters by reference2 and amount, and only for the biller asked', async () => {
    await qr('FILTER1', { amount: '10.00', ref2: 'AAA' });
    assert.ok(sim.pay({ ref1: 'FILTER1' }).ok);
    const on = { reference1: 'FILTER1', transactionDate: '2026-01-06' };
    assert.equal((await client.inquire({ ...on, reference2: 'AAA' })).json.data.length, 1);
    assert.equal((await client.inquire({ ...on, reference2: 'BBB' })).json.data.length, 0);
    assert.equal((await client.inquire({ ...on, amount: '10.00' })).json.data.length, 1);
    assert.equal((await client.inquire({ ...on, amount: '10' })).json.data.length, 1);
    assert.equal((await client.inquire({ ...on, amount: '10.01' })).json.data.length, 0);
    assert.equal((await client.inquire({ ...on, billerId: '099999999999999' })).json.data.length, 0);
  });

  test('the inquiry refuses missing (1101) and invalid (1102) parameters, naming them', async () => {
    const ok = { reference1: 'X1', transactionDate: '2026-01-06' };
    const missing = await client.inquire({ transactionDate: '2026-01-06' });
    assert.equal(missing.json.status.code, 1101);
    assert.match(missing.json.status.description, /reference1/);
    for (const [name, value] of [
      ['eventCode', '00300999'],
      ['transactionDate', '06/01/2026'],
      ['transactionDate', '2026-13-01'],
      ['billerId', '123'],
      ['amount', 'ten'],
    ] as const) {
      const answer = await client.inquire({ ...ok, [name]: value });
      assert.equal(answer.status, 400, `${name} ${value}`);
      assert.equal(answer.json.status.code, 1102, `${name} ${value}`);
      assert.match(answer.json.status.description, new RegExp(name));
    }
  });

  test('a v2 one-use QR takes one payment; the second is refused and not recorded', async () => {
    await qr('ONCE1', { numberOfTimes: 1, expiryDate: '2026-01-06 01:00:00' }, 'v2');
    assert.ok(sim.pay({ ref1: 'ONCE1' }).ok);
    const again = sim.pay({ ref1: 'ONCE1' });
    assert.equal(again.ok, false);
    assert.equal(!again.ok && again.status, 409);
    assert.match(!again.ok ? again.reason : '', /already paid 1 of 1/);
    assert.equal((await client.inquire({ reference1: 'ONCE1', transactionDate: '2026-01-06' })).json.data.length, 1);
  });

  test('a v2 QR with numberOfTimes 2 takes two; a v1 QR takes any number', async () => {
    await qr('TWICE1', { numberOfTimes: 2, expiryDate: '2026-01-06 01:00:00' }, 'v2');
    assert.ok(sim.pay({ ref1: 'TWICE1' }).ok);
    assert.ok(sim.pay({ ref1: 'TWICE1' }).ok);
    assert.equal(sim.pay({ ref1: 'TWICE1' }).ok, false);
    await qr('MANY1');
    for (let i = 0; i < 3; i++) assert.ok(sim.pay({ ref1: 'MANY1' }).ok);
  });

  test('a v2 QR is refused at and after its expiryDate (Bangkok time)', async () => {
    const start = sim.clock().unixMs;
    try {
      await qr('LATE1', { numberOfTimes: 1, expiryDate: '2026-01-06 00:45:00' }, 'v2');
      sim.setClock('2026-01-06T00:44:59+07:00');
      await qr('LATE2', { numberOfTimes: 1, expiryDate: '2026-01-06 00:45:00' }, 'v2');
      assert.ok(sim.pay({ ref1: 'LATE2' }).ok, 'a second before');
      sim.setClock('2026-01-06T00:45:00+07:00');
      const late = sim.pay({ ref1: 'LATE1' });
      assert.equal(late.ok, false);
      assert.match(!late.ok ? late.reason : '', /expired/);
    } finally {
      sim.setClock(start);
    }
  });

  test('the amount: another than the QR is refused; a QR without one needs one from the payer', async () => {
    await qr('AMT1', { amount: '100.00' });
    const wrong = sim.pay({ ref1: 'AMT1', amount: '99.99' });
    assert.equal(!wrong.ok && wrong.status, 409);
    assert.ok(sim.pay({ ref1: 'AMT1', amount: '100' }).ok, 'the same amount written otherwise');
    await qr('OPEN2', { amount: '0' });
    const none = sim.pay({ ref1: 'OPEN2' });
    assert.equal(!none.ok && none.status, 400);
    const open = sim.pay({ ref1: 'OPEN2', amount: '42.50' });
    assert.ok(open.ok);
    assert.equal(open.record.amount, '42.50');
  });

  test('pay by qrRawData: the exact QR, not the latest with its ref1; an unknown text is 404', async () => {
    const first = await qr('SAME1', { amount: '1.00' });
    await qr('SAME1', { amount: '2.00' });
    const paid = sim.pay({ qrRawData: first });
    assert.ok(paid.ok);
    assert.equal(paid.record.amount, '1.00');
    const byRef = sim.pay({ ref1: 'SAME1' });
    assert.ok(byRef.ok);
    assert.equal(byRef.record.amount, '2.00', 'by ref1: the latest QR');
    const unknown = sim.pay({ qrRawData: `${first}X` });
    assert.equal(!unknown.ok && unknown.status, 404);
  });

  test('the payer chosen over POST /__sim/pay: account, name, bank; masked when asked', async () => {
    await qr('WHO1');
    const answer = await request(`${sim.url}/__sim/pay`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ref1: 'WHO1',
        payerAccountNumber: '1234567890',
        payerName: 'SOMCHAI J',
        sendingBankCode: '004',
        maskPayer: true,
      }),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.record.payerAccountNumber, 'xxx-x-x6789-0');
    const [record] = (await client.inquire({ reference1: 'WHO1', transactionDate: '2026-01-06' })).json.data;
    assert.equal(record.payerAccountNumber, 'xxx-x-x6789-0', 'only the last five digits show');
    assert.equal(record.payerProxyId, 'xxx-x-x6789-0');
    assert.equal(record.payerName, 'SOMCHAI J');
    assert.equal(record.sendingBankCode, '004');
    // The default payer, masked: SCB's own example shape.
    await qr('WHO2');
    const masked = sim.pay({ ref1: 'WHO2', maskPayer: true });
    assert.equal(masked.ok && masked.record.payerAccountNumber, 'xxx-x-x3000-1');
  });

  test('POST /__sim/pay refusals: no QR 404, bad payer fields 400, both ref1 and qrRawData 400', async () => {
    const pay = (body: unknown) =>
      request(`${sim.url}/__sim/pay`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await pay({ ref1: 'NOSUCHQR' })).status, 404);
    await qr('REFUSE1');
    for (const body of [
      { ref1: 'REFUSE1', sendingBankCode: '14' },
      { ref1: 'REFUSE1', payerAccountNumber: '12-34' },
      { ref1: 'REFUSE1', qrRawData: 'x' },
      {},
    ]) {
      const answer = await pay(body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(typeof answer.json.error, 'string');
    }
  });

  test('the payer page lists the QRs and posts to /__sim/pay', async () => {
    const page = await request(`${sim.url}/__sim/payer`, { method: 'GET' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.text, /PAID1/);
    assert.match(page.text, /fetch\('\/__sim\/pay'/);
  });
});
