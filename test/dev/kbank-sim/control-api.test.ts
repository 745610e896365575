// The /__sim control API over real HTTP: pay, the clock, settlement, state and log (secrets
// redacted), and its refusals. The in-process handles of startKbankSim are the same operations;
// the other tests use those.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { request, SimClient } from '../../support/kbank-sim-http.ts';

describe('kbank-sim control API', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => {
    sim = await startKbankSim();
    client = new SimClient(sim);
    await client.token();
  });
  after(() => sim?.close());

  const control = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
    request(`${sim.url}/__sim${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  test('GET /__sim lists the routes', async () => {
    const answer = await control('');
    assert.equal(answer.status, 200);
    assert.ok(answer.json.routes.some((r: string) => r.startsWith('POST /__sim/pay')));
    assert.equal((await control('/nothing')).status, 404);
  });

  test('POST /__sim/pay pays a QR (amount as text or number), and refuses what a banking app would', async () => {
    const uid = client.uid('Q');
    await client.create(uid, '250.25');
    assert.equal((await control('/pay', { partnerTxnUid: uid, amount: '250.26' })).status, 409);
    assert.equal((await control('/pay', { partnerTxnUid: uid, amount: 'lots' })).status, 400);
    assert.equal((await control('/pay', {})).status, 400);
    assert.equal((await control('/pay', { partnerTxnUid: 'NOPE' })).status, 404);
    const paid = await control('/pay', { partnerTxnUid: uid, amount: 250.25, callback: 'drop' });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.status, 'PAID');
    assert.equal(paid.json.amount, '250.25');
    assert.match(paid.json.txnNo, /^\d{20}$/);
    assert.equal((await control('/pay', { partnerTxnUid: uid })).status, 409, 'paid already');
    assert.equal((await client.inquire(uid)).json.txnStatus, 'PAID');
  });

  test('POST /__sim/clock sets and advances the clock; GET reads it', async () => {
    const set = await control('/clock', { now: '2026-02-01T08:00:00+07:00' });
    assert.deepEqual(set.json, {
      now: '2026-02-01T08:00:00.000+07:00',
      unixMs: Date.parse(set.json.now),
      ticking: false,
    });
    const moved = await control('/clock', { advanceMs: 90_000 });
    assert.equal(moved.json.now, '2026-02-01T08:01:30.000+07:00');
    assert.equal((await control('/clock')).json.now, '2026-02-01T08:01:30.000+07:00');
    assert.equal((await control('/clock', { now: '2026-02-01 08:00' })).status, 400, 'a zone is required');
    assert.equal((await control('/clock', {})).status, 400);
    assert.equal((await control('/clock', { now: 0, advanceMs: 1 })).status, 400);
    await client.token();
  });

  test('POST /__sim/settle settles every unsettled payment', async () => {
    const uid = client.uid('Q');
    await client.create(uid, '10.00');
    sim.pay(uid, undefined, { callback: 'drop' });
    const settled = await control('/settle', {});
    assert.equal(settled.status, 200);
    assert.ok(settled.json.partnerTxnUids.includes(uid));
    assert.equal((await control('/settle', { merchantId: 'KB000000000000' })).status, 404);
  });

  test('GET /__sim/state and /__sim/log: records, counters, requests; partnerSecret never appears', async () => {
    const state = await control('/state');
    assert.equal(state.status, 200);
    assert.ok(state.json.records.length >= 2);
    assert.equal(state.json.config.qrTtlSeconds, 600);
    assert.ok(state.json.partnerTxnUidsUsed >= 2);
    const log = await control('/log');
    assert.ok(log.json.requests.length > 0);
    assert.ok(log.json.callbacks.length > 0);
    for (const text of [state.text, log.text]) {
      assert.ok(!text.includes(sim.credentials.partnerSecret), 'partnerSecret is redacted');
      assert.ok(!text.includes(sim.credentials.consumerSecret));
      assert.ok(!text.includes(client.accessToken), 'access tokens are redacted');
    }
  });

  test('a body that is not a JSON object is refused 400', async () => {
    const answer = await request(`${sim.url}/__sim/pay`, { body: '[1]' });
    assert.equal(answer.status, 400);
  });
});
