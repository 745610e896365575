// Payment confirmations delivered to a real receiver on 127.0.0.1 (docs/connectors/scb-sim.md
// "Confirmations"): only for successful payments, the transaction's record as JSON, delivered
// only by HTTP 200 with resCode "00", otherwise resent up to 3 times then given up; the drop,
// duplicate and delay faults; a forged confirmation for a reference nobody paid.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { answer, Receiver, sequence } from '../../support/delivery.ts';
import { request, ScbClient } from '../../support/scb-sim-http.ts';

const json = { 'content-type': 'application/json' };
const ACK = answer(200, json, '{"resCode":"00","resDesc":"success","transactionId":"x","confirmId":"c1"}');
const NACK = answer(200, json, '{"resCode":"99","resDesc":"not now"}');

describe('scb-sim confirmations', () => {
  let receiver: Receiver;
  let sim: ScbSim;
  let client: ScbClient;
  let n = 0;
  before(async () => {
    receiver = await Receiver.start();
    // The resend interval is SCB's 12 s by default; a test need not wait for it.
    sim = await startScbSim({ confirmation: { intervalMs: 20, timeoutMs: 2_000 } });
    client = new ScbClient(sim);
    await client.token();
  });
  after(async () => {
    await sim?.close();
    await receiver?.close();
  });

  /** A new receiver path answering with `behaviour`, a QR for it, and the path. */
  async function setUp(behaviour: Parameters<Receiver['on']>[1]): Promise<{ path: string; ref1: string }> {
    const path = `/confirm/${++n}`;
    receiver.on(path, behaviour);
    sim.setConfirmUrl(`${receiver.url}${path}`);
    const ref1 = `CONF${n}`;
    assert.equal((await client.create('v1', client.qrBody(ref1, { amount: '100.50' }))).status, 200);
    return { path, ref1 };
  }
  const bodies = (path: string) => receiver.to(path).map((r) => JSON.parse(r.body.toString('utf8')));

  test('a payment POSTs its record as JSON once; 200 with resCode 00 delivers it', async () => {
    const { path, ref1 } = await setUp(ACK);
    const paid = sim.pay({ ref1, payerName: 'SUDA K' });
    assert.ok(paid.ok);
    const delivery = await paid.confirmation;
    assert.equal(delivery.outcome, 'delivered');
    assert.equal(delivery.attempts.length, 1);
    const received = receiver.to(path);
    assert.equal(received.length, 1);
    assert.match(String(received[0]!.headers['content-type']), /^application\/json/);
    assert.equal(received[0]!.headers['authorization'], undefined, 'unsigned, no credentials');
    const [body] = bodies(path);
    assert.deepEqual(body, paid.record);
    assert.equal(body.amount, '100.50');
    assert.equal(body.billPaymentRef1, ref1);
    assert.equal(body.payerName, 'SUDA K');
    assert.equal(body.transactionType, 'Domestic Transfers');
    assert.equal(body.channelCode, 'PMH');
  });

  test('no answer accepted: resent 3 times, then given up (4 tries in all)', async () => {
    const { path, ref1 } = await setUp(NACK);
    const paid = sim.pay({ ref1 });
    assert.ok(paid.ok);
    const delivery = await paid.confirmation;
    assert.equal(delivery.outcome, 'failed');
    assert.equal(delivery.attempts.length, 4);
    assert.equal(receiver.to(path).length, 4);
    assert.ok(delivery.attempts.every((a) => !a.ok && a.error === 'the answer is not 200 with resCode "00"'));
    assert.deepEqual(new Set(bodies(path).map((b) => b.transactionId)), new Set([paid.payment.transactionId]));
  });

  test('only HTTP 200 counts: 201 with resCode 00, then a 500, then 200 00 — delivered on the third try', async () => {
    const created = answer(201, json, '{"resCode":"00"}');
    const { path, ref1 } = await setUp(sequence(created, answer(500), ACK));
    const paid = sim.pay({ ref1 });
    assert.ok(paid.ok);
    const delivery = await paid.confirmation;
    assert.equal(delivery.outcome, 'delivered');
    assert.deepEqual(
      delivery.attempts.map((a) => a.status),
      [201, 500, 200],
    );
    assert.equal(receiver.to(path).length, 3, 'no resend after the 00');
  });

  test('a refused payment sends nothing', async () => {
    const { path, ref1 } = await setUp(ACK);
    const wrong = sim.pay({ ref1, amount: '1.00' });
    assert.equal(wrong.ok, false);
    await sim.idle();
    assert.equal(receiver.to(path).length, 0);
  });

  test('drop fault: the next payment is recorded (inquiry finds it) but never confirmed', async () => {
    const { path, ref1 } = await setUp(ACK);
    const queued = await request(`${sim.url}/__sim/faults`, {
      headers: json,
      body: JSON.stringify({ endpoint: 'confirmation', fault: 'drop' }),
    });
    assert.equal(queued.status, 200, queued.text);
    const paid = sim.pay({ ref1 });
    assert.ok(paid.ok);
    assert.equal((await paid.confirmation).outcome, 'dropped');
    await sim.idle();
    assert.equal(receiver.to(path).length, 0);
    assert.equal((await client.inquire({ reference1: ref1, transactionDate: '2026-01-05' })).json.data.length, 1);
    // The fault served one payment: the next one is confirmed.
    assert.equal((await client.create('v1', client.qrBody(ref1, { amount: '100.50' }))).status, 200);
    const next = sim.pay({ ref1 });
    assert.ok(next.ok);
    assert.equal((await next.confirmation).outcome, 'delivered');
  });

  test('duplicate fault: the same body twice', async () => {
    const { path, ref1 } = await setUp(ACK);
    sim.faults({ endpoint: 'confirmation', fault: 'duplicate:2' });
    const paid = sim.pay({ ref1 });
    assert.ok(paid.ok);
    assert.equal((await paid.confirmation).outcome, 'delivered');
    const received = receiver.to(path).map((r) => r.body.toString('utf8'));
    assert.equal(received.length, 2);
    assert.equal(received[0], received[1]);
  });

  test('delay: the confirmation is sent later (the payment is already inquirable)', async () => {
    const { path, ref1 } = await setUp(ACK);
    const paid = sim.pay({ ref1, confirmation: 'delay:300' });
    assert.ok(paid.ok);
    assert.equal(receiver.to(path).length, 0);
    assert.equal((await client.inquire({ reference1: ref1, transactionDate: '2026-01-05' })).json.data.length, 1);
    const delivery = await paid.confirmation;
    assert.equal(delivery.mode, 'delay:300');
    assert.equal(delivery.outcome, 'delivered');
    assert.equal(receiver.to(path).length, 1);
  });

  test('forged: a confirmation for a reference nobody paid; the inquiry and slip do not know it', async () => {
    const { path } = await setUp(ACK);
    const answerForged = await request(`${sim.url}/__sim/confirm`, {
      headers: json,
      body: JSON.stringify({ forged: true, ref1: 'NEVERPAID1', amount: '999.00', wait: true }),
    });
    assert.equal(answerForged.status, 200, answerForged.text);
    assert.equal(answerForged.json.outcome, 'delivered');
    assert.equal(answerForged.json.forged, true);
    const [body] = bodies(path);
    assert.equal(body.billPaymentRef1, 'NEVERPAID1');
    assert.equal(body.amount, '999.00');
    const inquiry = await client.inquire({ reference1: 'NEVERPAID1', transactionDate: '2026-01-05' });
    assert.deepEqual(inquiry.json.data, []);
    assert.equal((await client.slip(body.transactionId)).status, 404);
  });

  test("re-send a payment's confirmation over the control API; an unknown id is 404", async () => {
    const { path, ref1 } = await setUp(ACK);
    const paid = sim.pay({ ref1, confirmation: 'drop' });
    assert.ok(paid.ok);
    await paid.confirmation;
    const again = await request(`${sim.url}/__sim/confirm`, {
      headers: json,
      body: JSON.stringify({ transactionId: paid.payment.transactionId, wait: true }),
    });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.outcome, 'delivered');
    assert.equal(bodies(path)[0].transactionId, paid.payment.transactionId);
    const unknown = await request(`${sim.url}/__sim/confirm`, {
      headers: json,
      body: JSON.stringify({ transactionId: 'nope' }),
    });
    assert.equal(unknown.status, 404);
  });

  test('no confirm URL: nothing is sent, the delivery says so', async () => {
    sim.setConfirmUrl(null);
    assert.equal((await client.create('v1', client.qrBody('NOURL1'))).status, 200);
    const paid = sim.pay({ ref1: 'NOURL1' });
    assert.ok(paid.ok);
    assert.equal((await paid.confirmation).outcome, 'no-callback-url');
  });
});
