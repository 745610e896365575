// Faults of the SCB simulator over real HTTP (docs/connectors/scb-sim.md "Faults"): the bank down
// (503 9900) for one endpoint while the others answer, a call that hangs unapplied, one applied
// but never answered, an answer lost after the QR was created (connection dropped), 504 and 500,
// the queue's count and order, moving the clock over HTTP, and refusals of unknown faults.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { NoAnswer, request, ScbClient } from '../../support/scb-sim-http.ts';

const json = { 'content-type': 'application/json' };

describe('scb-sim faults', () => {
  let sim: ScbSim;
  let client: ScbClient;
  before(async () => {
    sim = await startScbSim();
    client = new ScbClient(sim);
    await client.token();
  });
  after(() => sim?.close());

  const qrsWith = (ref1: string) => sim.state().qrs.filter((q) => q.ref1 === ref1).length;
  const addFault = (spec: Record<string, unknown>) =>
    request(`${sim.url}/__sim/faults`, { headers: json, body: JSON.stringify(spec) });

  test('down on createV2: 503 9900, nothing created; createV1 and the inquiry still answer', async () => {
    assert.equal((await addFault({ endpoint: 'createV2', fault: 'down', count: 2 })).status, 200);
    const v1 = await client.create('v1', client.qrBody('DOWN1'));
    assert.equal(v1.status, 200, 'another endpoint is up');
    const inquiry = await client.inquire({ reference1: 'DOWN1', transactionDate: '2026-01-05' });
    assert.equal(inquiry.status, 200);
    for (let i = 0; i < 2; i++) {
      const down = await client.create(
        'v2',
        client.qrBody('DOWN2', { numberOfTimes: 1, expiryDate: '2026-01-05 11:00:00' }),
      );
      assert.equal(down.status, 503);
      assert.equal(down.json.status.code, 9900);
    }
    assert.equal(qrsWith('DOWN2'), 0, 'not applied');
    const up = await client.create(
      'v2',
      client.qrBody('DOWN2', { numberOfTimes: 1, expiryDate: '2026-01-05 11:00:00' }),
    );
    assert.equal(up.status, 200, 'count 2 served two calls');
  });

  test('down on the token and on the inquiry (by path)', async () => {
    sim.faults([
      { endpoint: 'token', fault: 'down' },
      { endpoint: '/v1/payment/billpayment/inquiry', fault: 'down' },
    ]);
    const token = await client.token();
    assert.equal(token.status, 503);
    assert.equal(token.json.status.code, 9900);
    const inquiry = await client.inquire({ reference1: 'X1', transactionDate: '2026-01-05' });
    assert.equal(inquiry.status, 503);
    assert.equal((await client.token()).status, 200);
  });

  test('hang: no answer and nothing created (the client gives up)', async () => {
    sim.faults({ endpoint: 'createV1', fault: 'hang' });
    await assert.rejects(client.create('v1', client.qrBody('HANG1'), 300), NoAnswer);
    assert.equal(qrsWith('HANG1'), 0);
  });

  test('timeout: no answer, but the QR was created', async () => {
    sim.faults({ endpoint: 'createV1', fault: 'timeout' });
    await assert.rejects(client.create('v1', client.qrBody('TIMEOUT1'), 300), NoAnswer);
    assert.equal(qrsWith('TIMEOUT1'), 1);
  });

  test('answerLost: the QR is created, then the connection drops without an answer', async () => {
    sim.faults({ endpoint: 'createV1', fault: 'answerLost' });
    await assert.rejects(client.create('v1', client.qrBody('LOST1')), (error: Error & { code?: string }) => {
      assert.ok(!(error instanceof NoAnswer), 'dropped at once, not a timeout');
      assert.match(String(error.code ?? error.message), /ECONNRESET|socket hang up/);
      return true;
    });
    assert.equal(qrsWith('LOST1'), 1);
    const entry = sim.log().requests.at(-1)!;
    assert.equal(entry.fault, 'answerLost');
    assert.match(entry.handling, /connection dropped/);
    // The customer can pay the QR whose answer was lost.
    assert.ok(sim.pay({ ref1: 'LOST1' }).ok);
  });

  test('http504 is applied (504 9900, QR created); http500 is not (500 9700)', async () => {
    sim.faults([
      { endpoint: 'createV1', fault: 'http504' },
      { endpoint: 'createV1', fault: 'http500' },
    ]);
    const gatewayTimeout = await client.create('v1', client.qrBody('E504'));
    assert.equal(gatewayTimeout.status, 504);
    assert.equal(gatewayTimeout.json.status.code, 9900);
    assert.equal(qrsWith('E504'), 1);
    const serverError = await client.create('v1', client.qrBody('E500'));
    assert.equal(serverError.status, 500);
    assert.equal(serverError.json.status.code, 9700);
    assert.equal(qrsWith('E500'), 0);
  });

  test('the queue is listed and cleared; unknown faults and endpoints are 400', async () => {
    await addFault({ endpoint: 'slip', fault: 'latency:5', count: 3 });
    const listed = await request(`${sim.url}/__sim/faults`, { method: 'GET' });
    assert.deepEqual(listed.json.faults, [{ endpoint: 'slip', fault: 'latency:5', remaining: 3 }]);
    assert.equal((await request(`${sim.url}/__sim/faults`, { method: 'DELETE' })).status, 200);
    assert.deepEqual(sim.state().faults, []);
    for (const spec of [
      { endpoint: 'createV1', fault: 'explode' },
      { endpoint: 'refund', fault: 'down' },
      { endpoint: 'confirmation', fault: 'down' },
      { endpoint: 'createV1', fault: 'drop' },
    ]) {
      const refused = await addFault(spec);
      assert.equal(refused.status, 400, JSON.stringify(spec));
      assert.equal(typeof refused.json.error, 'string');
    }
  });

  test('the clock moves over HTTP: to an instant and forward; the inquiry date follows it', async () => {
    const start = sim.clock().unixMs;
    try {
      const set = await request(`${sim.url}/__sim/clock`, {
        headers: json,
        body: JSON.stringify({ now: '2026-01-05T23:59:00+07:00' }),
      });
      assert.equal(set.json.now, '2026-01-05T23:59:00.000+07:00');
      const moved = await request(`${sim.url}/__sim/clock`, {
        headers: json,
        body: JSON.stringify({ advanceMs: 120_000 }),
      });
      assert.equal(moved.json.now, '2026-01-06T00:01:00.000+07:00');
      await client.token();
      assert.equal((await client.create('v1', client.qrBody('MIDNIGHT1'))).status, 200);
      assert.ok(sim.pay({ ref1: 'MIDNIGHT1' }).ok);
      const found = await client.inquire({ reference1: 'MIDNIGHT1', transactionDate: '2026-01-06' });
      assert.equal(found.json.data.length, 1);
      assert.equal(found.json.data[0].transactionDateandTime, '2026-01-06T00:01:00+07:00');
    } finally {
      sim.setClock(start);
      await client.token();
    }
  });

  test('the log redacts the secret and access tokens', async () => {
    await client.token();
    const log = JSON.stringify((await request(`${sim.url}/__sim/log`, { method: 'GET' })).json);
    assert.ok(!log.includes(sim.credentials.apiSecret), 'applicationSecret');
    assert.ok(!log.includes(client.accessToken), 'accessToken');
    assert.match(log, /"applicationSecret":"<redacted>"/);
  });
});
