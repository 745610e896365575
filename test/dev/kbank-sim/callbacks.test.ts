// Payment callbacks delivered to a real receiver on 127.0.0.1: the §4.8 body after a payment, each
// fault mode, success only on 2xx + statusCode "00", one attempt by default, retries when
// configured, the attempt timeout, and the control API's re-delivery over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim, type KbankSimOptions } from '../../../src/dev/kbank-sim/server.ts';
import { answer, hang, Receiver, sequence } from '../../support/delivery.ts';
import { request, SimClient } from '../../support/kbank-sim-http.ts';

const ACK = answer(
  200,
  { 'content-type': 'application/json' },
  '{"statusCode":"00","errorCode":null,"errorDesc":null}',
);
const CALLBACK_KEYS = [
  'partnerTxnUid',
  'partnerId',
  'statusCode',
  'errorCode',
  'errorDesc',
  'merchantId',
  'txnAmount',
  'txnCurrencyCode',
  'txnNo',
];

type Setup = { sim: KbankSim; client: SimClient; receiver: Receiver; path: string };

async function setUp(receiver: Receiver, path: string, options: KbankSimOptions = {}): Promise<Setup> {
  const sim = await startKbankSim(options);
  sim.setCallbackUrl(sim.credentials.merchantId, `${receiver.url}${path}`);
  const client = new SimClient(sim);
  await client.token();
  return { sim, client, receiver, path };
}

/** A new QR for 100.50, created over HTTP. */
async function newQr(client: SimClient): Promise<string> {
  const uid = client.uid('Q');
  const created = await client.create(uid, '100.50');
  assert.equal(created.json.statusCode, '00', created.text);
  return uid;
}

const bodies = (receiver: Receiver, path: string) => receiver.to(path).map((r) => r.body.toString('utf8'));

describe('kbank-sim callbacks', () => {
  let receiver: Receiver;
  let s: Setup;
  before(async () => {
    receiver = await Receiver.start();
    receiver.on('/kbank', ACK);
    s = await setUp(receiver, '/kbank');
  });
  after(async () => {
    await s?.sim.close();
    await receiver?.close();
  });

  test('a payment POSTs the §4.8 body (txnAmount a 2-decimal number) and one 00 answer delivers it', async () => {
    const uid = await newQr(s.client);
    const before = receiver.to('/kbank').length;
    const paid = s.sim.pay(uid, undefined, { loyaltyId: '00199100000' });
    assert.ok(paid.ok);
    const delivery = await paid.callback;
    assert.equal(delivery.outcome, 'delivered');
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0]!.status, 200);
    const received = receiver.to('/kbank').slice(before);
    assert.equal(received.length, 1);
    assert.match(String(received[0]!.headers['content-type']), /^application\/json/);
    const text = received[0]!.body.toString('utf8');
    assert.match(text, /"txnAmount":100\.50,/);
    const body = JSON.parse(text);
    assert.deepEqual(Object.keys(body), [...CALLBACK_KEYS, 'loyaltyId']);
    assert.equal(body.partnerTxnUid, uid, 'the original Request-QR id');
    assert.equal(body.partnerId, s.sim.credentials.partnerId);
    assert.equal(body.merchantId, s.sim.credentials.merchantId);
    assert.equal(body.statusCode, '00');
    assert.equal(body.errorCode, null);
    assert.equal(body.txnCurrencyCode, 'THB');
    assert.equal(body.txnNo, paid.record.txnNo);
    assert.equal(body.loyaltyId, '00199100000');
  });

  test('drop: nothing is sent', async () => {
    const uid = await newQr(s.client);
    const before = receiver.to('/kbank').length;
    const paid = s.sim.pay(uid, undefined, { callback: 'drop' });
    assert.ok(paid.ok);
    assert.equal((await paid.callback).outcome, 'dropped');
    await s.sim.idle();
    assert.equal(receiver.to('/kbank').length, before);
  });

  test('delay:<ms>: sent that much real time later', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const started = Date.now();
    const delivery = await s.sim.deliverCallback(uid, 'delay:150');
    assert.equal(delivery.outcome, 'delivered');
    assert.ok(Date.now() - started >= 140, `took ${Date.now() - started} ms`);
  });

  test('duplicate:<n>: the same body n times', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const before = receiver.to('/kbank').length;
    const delivery = await s.sim.deliverCallback(uid, 'duplicate:3');
    assert.equal(delivery.outcome, 'delivered');
    const sent = bodies(receiver, '/kbank').slice(before);
    assert.equal(sent.length, 3);
    assert.equal(new Set(sent).size, 1);
    assert.equal(JSON.parse(sent[0]!).partnerTxnUid, uid);
  });

  test('reorder: held until the next callback went, then sent after it', async () => {
    const first = await newQr(s.client);
    const second = await newQr(s.client);
    const before = receiver.to('/kbank').length;
    const held = s.sim.pay(first, undefined, { callback: 'reorder' });
    assert.ok(held.ok);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.to('/kbank').length, before, 'nothing yet');
    assert.equal(s.sim.log().callbacks.at(-1)!.outcome, 'held');
    const next = s.sim.pay(second);
    assert.ok(next.ok);
    await Promise.all([held.callback, next.callback]);
    const order = bodies(receiver, '/kbank')
      .slice(before)
      .map((text) => JSON.parse(text).partnerTxnUid);
    assert.deepEqual(order, [second, first]);
  });

  test('wrongAmount, wrongMerchant, statusCode10: the body lies in one field', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const sent = async (mode: string) => JSON.parse((await s.sim.deliverCallback(uid, mode)).body);
    assert.equal((await sent('wrongAmount')).txnAmount, 101.5);
    const wrongMerchant = await sent('wrongMerchant');
    assert.notEqual(wrongMerchant.merchantId, s.sim.credentials.merchantId);
    assert.match(wrongMerchant.merchantId, /^KB\d{12}$/);
    const failed = await sent('statusCode10');
    assert.equal(failed.statusCode, '10');
    assert.equal(failed.errorCode, 'general_error');
    assert.match(failed.errorDesc, /\(EMG\)$/);
    assert.equal(failed.partnerTxnUid, uid);
  });

  test('forged: a partnerTxnUid the bank never issued (also for an id the simulator does not know)', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const forged = JSON.parse((await s.sim.deliverCallback(uid, 'forged')).body);
    assert.notEqual(forged.partnerTxnUid, uid);
    assert.equal(
      s.sim.state().records.find((r) => r.partnerTxnUid === forged.partnerTxnUid),
      undefined,
    );
    const inquiry = await s.client.inquire(forged.partnerTxnUid);
    assert.equal(inquiry.json.txnStatus, 'NOT_FOUND', 'an inquiry shows the forgery');
    const unknown = await s.sim.deliverCallback('NEVERCREATED001', 'forged');
    assert.equal(unknown.outcome, 'delivered');
    assert.equal(JSON.parse(unknown.body).merchantId, s.sim.credentials.merchantId);
  });

  test('malformedJson: the body is cut in half', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const before = receiver.to('/kbank').length;
    await s.sim.deliverCallback(uid, 'malformedJson');
    const text = bodies(receiver, '/kbank')[before]!;
    assert.throws(() => JSON.parse(text));
    assert.ok(text.startsWith('{"partnerTxnUid":'));
  });

  test('an unknown mode or uid is refused', async () => {
    assert.throws(() => s.sim.deliverCallback('X', 'sometimes'), /unknown callback mode/);
    assert.throws(() => s.sim.deliverCallback('NEVERCREATED002'), /no QR was created/);
  });

  test('the control API re-delivers over HTTP (wait: true answers the delivery record)', async () => {
    const uid = await newQr(s.client);
    s.sim.pay(uid, undefined, { callback: 'drop' });
    const answerOf = await request(`${s.sim.url}/__sim/callback/${uid}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'duplicate:2', wait: true }),
    });
    assert.equal(answerOf.status, 200, answerOf.text);
    assert.equal(answerOf.json.outcome, 'delivered');
    assert.equal(answerOf.json.mode, 'duplicate:2');
    const accepted = await request(`${s.sim.url}/__sim/callback/${uid}`, { body: '{}' });
    assert.equal(accepted.status, 202);
    await s.sim.idle();
    const unknown = await request(`${s.sim.url}/__sim/callback/NOPE`, { body: '{}' });
    assert.equal(unknown.status, 404);
    const badMode = await request(`${s.sim.url}/__sim/callback/${uid}`, { body: '{"mode":"often"}' });
    assert.equal(badMode.status, 400);
  });
});

describe('kbank-sim callbacks: what counts as delivered, retries, timeouts', () => {
  let receiver: Receiver;
  before(async () => (receiver = await Receiver.start()));
  after(() => receiver?.close());

  test('one attempt by default: a 500 loses the callback', async () => {
    receiver.on('/fails', answer(500));
    const s = await setUp(receiver, '/fails');
    try {
      const paid = s.sim.pay(await newQr(s.client));
      assert.ok(paid.ok);
      const delivery = await paid.callback;
      assert.equal(delivery.outcome, 'failed');
      assert.equal(delivery.attempts.length, 1);
      assert.equal(receiver.to('/fails').length, 1);
    } finally {
      await s.sim.close();
    }
  });

  test('2xx without statusCode "00" in a JSON body is not a success', async () => {
    receiver.on('/plain', answer(200, {}, 'ok'));
    const s = await setUp(receiver, '/plain');
    try {
      const paid = s.sim.pay(await newQr(s.client));
      assert.ok(paid.ok);
      assert.equal((await paid.callback).outcome, 'failed');
    } finally {
      await s.sim.close();
    }
  });

  test('attempts and intervalMs: retried until a 00 answer', async () => {
    receiver.on('/flaky', sequence(answer(503), answer(200, {}, '{"statusCode":"10"}'), ACK));
    const s = await setUp(receiver, '/flaky', { callback: { attempts: 4, intervalMs: 20 } });
    try {
      const paid = s.sim.pay(await newQr(s.client));
      assert.ok(paid.ok);
      const delivery = await paid.callback;
      assert.equal(delivery.outcome, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((a) => a.status),
        [503, 200, 200],
      );
      assert.deepEqual(
        delivery.attempts.map((a) => a.ok),
        [false, false, true],
      );
    } finally {
      await s.sim.close();
    }
  });

  test('timeoutMs ends an attempt the receiver never answers', async () => {
    receiver.on('/hangs', hang);
    const s = await setUp(receiver, '/hangs', { callback: { timeoutMs: 100 } });
    try {
      const paid = s.sim.pay(await newQr(s.client));
      assert.ok(paid.ok);
      const delivery = await paid.callback;
      assert.equal(delivery.outcome, 'failed');
      assert.equal(delivery.attempts[0]!.error, 'TimeoutError');
    } finally {
      await s.sim.close();
    }
  });

  test('no callback URL registered: nothing is sent; the control API can register one', async () => {
    receiver.on('/later', ACK);
    const sim = await startKbankSim();
    try {
      const client = new SimClient(sim);
      await client.token();
      const uid = await newQr(client);
      const paid = sim.pay(uid);
      assert.ok(paid.ok);
      assert.equal((await paid.callback).outcome, 'no-callback-url');
      const set = await request(`${sim.url}/__sim/callback-url`, {
        body: JSON.stringify({ merchantId: sim.credentials.merchantId, url: `${receiver.url}/later` }),
      });
      assert.equal(set.status, 200, set.text);
      assert.equal((await sim.deliverCallback(uid)).outcome, 'delivered');
      assert.equal(receiver.to('/later').length, 1);
    } finally {
      await sim.close();
    }
  });

  test('close() cancels a held or delayed callback', async () => {
    receiver.on('/never', ACK);
    const s = await setUp(receiver, '/never');
    const first = await newQr(s.client);
    const second = await newQr(s.client);
    s.sim.pay(first, undefined, { callback: 'reorder' });
    s.sim.pay(second, undefined, { callback: 'delay:60000' });
    await s.sim.close();
    assert.deepEqual(
      s.sim.log().callbacks.map((c) => c.outcome),
      ['cancelled', 'cancelled'],
    );
    assert.equal(receiver.to('/never').length, 0);
  });
});
