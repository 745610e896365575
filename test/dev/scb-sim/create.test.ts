// QR create v1 and v2 over real HTTP (docs/connectors/scb-sim.md "The faithful surface"): the
// answer's qrRawData is a valid EMV Thai QR for bill payment (tag 30: biller id, ref1, ref2; 54
// the amount; 62/07 ref3; the CRC), fields are refused with SCB's 1101 (missing) and 1102
// (invalid) naming the field, v2 takes numberOfTimes with an expiryDate in Bangkok time, and a
// second create with the same ref1 is another QR.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { request, ScbClient } from '../../support/scb-sim-http.ts';

describe('scb-sim QR create', () => {
  let sim: ScbSim;
  let client: ScbClient;
  before(async () => {
    sim = await startScbSim({ billerId: '010555512345601', ref3Prefix: 'GWX' });
    client = new ScbClient(sim);
    await client.token();
  });
  after(() => sim?.close());

  test('v1: 200 1000, qrRawData a tag-30 Thai QR: biller id, ref1, ref2, amount, ref3, a valid CRC', async () => {
    const answer = await client.create(
      'v1',
      client.qrBody('ORDER42', { amount: '100.5', ref2: 'SHOP7', ref3: 'GWXA1' }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.status, { code: 1000, description: 'Success' });
    const { qrRawData, qrImage } = answer.json.data;
    assert.equal(typeof qrImage, 'string');
    const qr = verifyThaiQrPayload(qrRawData);
    assert.ok(qr.ok, qr.errors.join('; '));
    assert.equal(qr.fields['01'], '12', 'dynamic');
    assert.deepEqual(qr.billPayment, {
      '00': 'A000000677010112',
      '01': '010555512345601',
      '02': 'ORDER42',
      '03': 'SHOP7',
    });
    assert.equal(qr.fields['53'], '764');
    assert.equal(qr.fields['54'], '100.50');
    assert.equal(qr.fields['58'], 'TH');
    assert.equal(qr.fields['62'], '0705GWXA1', 'ref3 as the terminal label');
  });

  test('amount 0: a QR without tag 54 (the payer enters the amount)', async () => {
    const answer = await client.create('v1', client.qrBody('OPEN1', { amount: '0.00' }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(verifyThaiQrPayload(answer.json.data.qrRawData).fields['54'], undefined);
  });

  for (const [name, body, code] of [
    ['ref1', { ref1: undefined }, 1101],
    ['amount', { amount: undefined }, 1101],
    ['ref3', { ref3: '' }, 1101],
    ['qrType', { qrType: 'PPCS' }, 1102],
    ['ppType', { ppType: 'ACCOUNT' }, 1102],
    ['ppId', { ppId: '010555512345602' }, 1102],
    ['amount', { amount: '100.005' }, 1102],
    ['amount', { amount: 100 }, 1102],
    ['amount', { amount: '-1.00' }, 1102],
    ['ref1', { ref1: 'order42' }, 1102],
    ['ref1', { ref1: 'A'.repeat(21) }, 1102],
    ['ref2', { ref2: 'SHOP-7' }, 1102],
    ['ref3', { ref3: 'SCBA1' }, 1102],
  ] as const) {
    test(`${name} ${JSON.stringify(Object.values(body)[0])}: 400 ${code} naming ${name}`, async () => {
      const answer = await client.create('v1', client.qrBody('BAD1', body));
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.status.code, code);
      assert.match(answer.json.status.description, new RegExp(`: ${name}$`));
      assert.equal(answer.json.data, null);
    });
  }

  test('v2: numberOfTimes with expiryDate (Bangkok time) is accepted; the QR records both', async () => {
    const answer = await client.create(
      'v2',
      client.qrBody('V2ONE', { numberOfTimes: 1, expiryDate: '2026-01-05 10:15:00' }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.ok(verifyThaiQrPayload(answer.json.data.qrRawData).ok);
    const qr = sim.state().qrs.find((q) => q.ref1 === 'V2ONE')!;
    assert.equal(qr.version, 'v2');
    assert.equal(qr.numberOfTimes, 1);
    assert.equal(qr.expiresAt, '2026-01-05T10:15:00.000+07:00', 'expiryDate is Bangkok time, not UTC');
  });

  for (const [label, extra, code, name] of [
    ['numberOfTimes without expiryDate', { numberOfTimes: 1 }, 1101, 'expiryDate'],
    ['expiryDate not YYYY-MM-DD HH:MM:SS', { numberOfTimes: 1, expiryDate: '2026-01-05T10:15:00' }, 1102, 'expiryDate'],
    ['expiryDate not a date', { numberOfTimes: 1, expiryDate: '2026-02-30 10:15:00' }, 1102, 'expiryDate'],
    ['numberOfTimes over 9999', { numberOfTimes: 10000, expiryDate: '2026-01-05 10:15:00' }, 1102, 'numberOfTimes'],
    ['numberOfTimes negative', { numberOfTimes: -1, expiryDate: '2026-01-05 10:15:00' }, 1102, 'numberOfTimes'],
  ] as const) {
    test(`v2 ${label}: ${code} naming ${name}`, async () => {
      const answer = await client.create('v2', client.qrBody('V2BAD', extra));
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.status.code, code);
      assert.match(answer.json.status.description, new RegExp(name));
    });
  }

  test('the same ref1 twice: two QRs (SCB documents no idempotency)', async () => {
    const first = await client.create('v1', client.qrBody('TWICE'));
    const second = await client.create('v1', client.qrBody('TWICE'));
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(sim.state().qrs.filter((q) => q.ref1 === 'TWICE').length, 2);
  });

  test('an unknown path or a wrong method is 404', async () => {
    const answer = await request(`${sim.baseUrl}/v3/payment/qrcode/create`, { headers: client.headers(), body: '{}' });
    assert.equal(answer.status, 404);
    const get = await request(`${sim.baseUrl}/v1/payment/qrcode/create`, { method: 'GET', headers: client.headers() });
    assert.equal(get.status, 404);
  });
});
