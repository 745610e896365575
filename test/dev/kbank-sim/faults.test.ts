// Faults for the next calls of an endpoint, over real HTTP: a timeout applies the call and never
// answers (the client gives up; an inquiry shows what happened), 504 applies and fails, 500, 429
// and openapi_error refuse without applying, latency delays; queued through the control API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { NoAnswer, request, SimClient } from '../../support/kbank-sim-http.ts';

describe('kbank-sim faults', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => {
    sim = await startKbankSim();
    client = new SimClient(sim);
    await client.token();
  });
  after(() => sim?.close());

  test('timeout: the create is applied but never answered; an inquiry finds the QR, a resend gets EMDR', async () => {
    sim.faults({ endpoint: 'request', fault: 'timeout' });
    const uid = client.uid('Q');
    await assert.rejects(
      client.call('/v1/qrpayment/request', client.createBody(uid), {}, 300),
      (error) => error instanceof NoAnswer,
    );
    const inquiry = await client.inquire(uid);
    assert.equal(inquiry.json.txnStatus, 'REQUESTED', 'the bank applied it');
    assert.equal((await client.create(uid)).json.errorCode, 'duplicate_request');
    const logged = sim.log().requests.find((r) => (r.body as any)?.partnerTxnUid === uid)!;
    assert.equal(logged.fault, 'timeout');
    assert.equal(logged.answer, null);
    assert.match(logged.handling, /not answered/);
  });

  test('timeout on a void: the payment is voided although the client heard nothing', async () => {
    const uid = client.uid('Q');
    await client.create(uid);
    assert.ok(sim.pay(uid).ok);
    sim.faults({ endpoint: '/v1/qrpayment/void', fault: 'timeout' });
    await assert.rejects(
      client.call('/v1/qrpayment/void', { ...client.common(client.uid('V')), origPartnerTxnUid: uid }, {}, 300),
    );
    assert.equal((await client.inquire(uid)).json.txnStatus, 'VOIDED');
  });

  test('a held (timeout) request is dropped when the simulator closes', async () => {
    const other = await startKbankSim();
    const otherClient = new SimClient(other);
    await otherClient.token();
    other.faults({ endpoint: 'inquiry', fault: 'timeout' });
    const pending = otherClient.inquire('ANY');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await other.close();
    await assert.rejects(pending, (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET');
  });

  test('http500 ×2: two refused calls, not applied, then the bank answers again', async () => {
    sim.faults({ endpoint: 'request', fault: 'http500', count: 2 });
    const uid = client.uid('Q');
    for (let i = 0; i < 2; i++) {
      const answer = await client.create(uid);
      assert.equal(answer.status, 500);
      assert.deepEqual(answer.json, { code: 'openapi_error', message: 'Internal Server Error' });
    }
    assert.equal((await client.inquire(uid)).json.txnStatus, 'NOT_FOUND', 'not applied');
    assert.equal((await client.create(uid)).json.statusCode, '00', 'the id was not spent');
  });

  test('http504: applied, then answered 504', async () => {
    sim.faults({ endpoint: 'request', fault: 'http504' });
    const uid = client.uid('Q');
    const answer = await client.create(uid);
    assert.equal(answer.status, 504);
    assert.equal(answer.json.code, 'openapi_error');
    assert.equal((await client.inquire(uid)).json.txnStatus, 'REQUESTED');
  });

  test('rateLimit: 429 openapi_error, not applied', async () => {
    sim.faults({ endpoint: 'inquiry', fault: 'rateLimit' });
    const answer = await client.inquire('ANY');
    assert.equal(answer.status, 429);
    assert.deepEqual(answer.json, {
      code: 'openapi_error',
      message: 'Rate limit quota violation. Quota limit exceeded.',
    });
    assert.equal((await client.inquire('ANY')).status, 200);
  });

  test('openapi_error:<message> with a status, on the token endpoint', async () => {
    sim.faults({ endpoint: 'token', fault: 'openapi_error:Invalid ApiKey for given resource', status: 401 });
    const answer = await client.token();
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.json, { code: 'openapi_error', message: 'Invalid ApiKey for given resource' });
    assert.equal((await client.token()).status, 200);
  });

  test('latency:<ms>: answered normally, that much later', async () => {
    sim.faults({ endpoint: 'inquiry', fault: 'latency:200' });
    const started = Date.now();
    const answer = await client.inquire('ANY');
    assert.equal(answer.status, 200);
    assert.ok(Date.now() - started >= 190, `${Date.now() - started} ms`);
  });

  test('faults are queued per endpoint and served in order; the other endpoints are untouched', async () => {
    sim.faults([
      { endpoint: 'cancel', fault: 'http500' },
      { endpoint: 'cancel', fault: 'rateLimit' },
    ]);
    assert.deepEqual(sim.state().faults, [
      { endpoint: 'cancel', fault: 'http500', remaining: 1 },
      { endpoint: 'cancel', fault: 'rateLimit', remaining: 1 },
    ]);
    assert.equal((await client.inquire('ANY')).status, 200);
    assert.equal((await client.cancel('ANY')).status, 500);
    assert.equal((await client.cancel('ANY')).status, 429);
    assert.equal((await client.cancel('ANY')).status, 200);
    assert.deepEqual(sim.state().faults, []);
  });

  test('the control API queues, lists and clears faults; a bad one is refused 400', async () => {
    const url = `${sim.url}/__sim/faults`;
    const queued = await request(url, { body: JSON.stringify({ endpoint: '/v1/qrpayment/void', fault: 'http504' }) });
    assert.equal(queued.status, 200, queued.text);
    assert.deepEqual(queued.json.faults, [{ endpoint: 'void', fault: 'http504', remaining: 1 }]);
    assert.deepEqual((await request(url, { method: 'GET' })).json.faults, queued.json.faults);
    assert.deepEqual((await request(url, { method: 'DELETE' })).json.faults, []);
    for (const bad of [
      { endpoint: 'void', fault: 'explode' },
      { endpoint: 'refund', fault: 'http500' },
      { endpoint: 'void', fault: 'http500', count: 0 },
      { fault: 'http500' },
    ]) {
      const refused = await request(url, { body: JSON.stringify(bad) });
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.equal(typeof refused.json.error, 'string');
    }
  });
});

describe('kbank-sim configured latency', () => {
  test('latency.ms delays every answer of the faithful surface, not the control API', async () => {
    const sim = await startKbankSim({ latency: { ms: 120, jitterMs: 20 } });
    try {
      let started = Date.now();
      await new SimClient(sim).token();
      assert.ok(Date.now() - started >= 95, `${Date.now() - started} ms`);
      started = Date.now();
      await request(`${sim.url}/__sim/state`, { method: 'GET' });
      assert.ok(Date.now() - started < 95);
    } finally {
      await sim.close();
    }
  });
});
