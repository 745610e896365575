// The SCB simulator's token and headers over real HTTP (docs/connectors/scb-sim.md "The faithful
// surface"): the token needs resourceOwnerId = the API key and the app's key and secret (401
// 9500 otherwise), every call the standard headers (9100), every call after the token a valid
// bearer token (401 9300) — which lives 1800 s of the simulator's clock, or until expired on purpose.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { request, ScbClient } from '../../support/scb-sim-http.ts';

describe('scb-sim token and headers', () => {
  let sim: ScbSim;
  let client: ScbClient;
  before(async () => {
    sim = await startScbSim();
    client = new ScbClient(sim);
  });
  after(() => sim?.close());

  test('a token: 200 1000 with accessToken, Bearer, expiresIn 1800 and expiresAt on the clock', async () => {
    const answer = await client.token();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.status, { code: 1000, description: 'Success' });
    const { accessToken, tokenType, expiresIn, expiresAt } = answer.json.data;
    assert.match(accessToken, /^\S{20,}$/);
    assert.equal(tokenType, 'Bearer');
    assert.equal(expiresIn, 1800);
    assert.equal(expiresAt, Math.floor(sim.clock().unixMs / 1000) + 1800);
  });

  for (const [name, change] of [
    ['resourceOwnerId', { headers: { resourceOwnerId: 'l7someoneelse' } }],
    ['applicationKey', { body: { applicationKey: 'l7someoneelse' } }],
    ['applicationSecret', { body: { applicationSecret: 'wrong' } }],
  ] as const) {
    test(`a wrong ${name} is 401 9500`, async () => {
      const answer = await client.token('body' in change ? change.body : {}, 'headers' in change ? change.headers : {});
      assert.equal(answer.status, 401);
      assert.equal(answer.json.status.code, 9500);
      assert.match(answer.json.status.description, new RegExp(name));
      assert.equal(answer.json.data, null);
    });
  }

  test('a missing standard header is 9100 naming it, before anything else', async () => {
    await client.token();
    for (const name of ['resourceOwnerId', 'requestUId', 'accept-language', 'content-type']) {
      const answer = await client.create('v1', client.qrBody('HDR1'));
      assert.equal(answer.status, 200, 'the full set is accepted');
      const missing = await request(`${sim.baseUrl}/v1/payment/qrcode/create`, {
        headers: client.headers([name]),
        body: JSON.stringify(client.qrBody('HDR1')),
      });
      assert.equal(missing.status, 400, name);
      assert.equal(missing.json.status.code, 9100, name);
      assert.match(missing.json.status.description, new RegExp(name));
    }
  });

  test('v2 wants a requestUId of 32 letters and digits (9100); v1 takes any', async () => {
    const headers = { ...client.headers(), requestUId: 'short-1' };
    const body = JSON.stringify(client.qrBody('UID1', { numberOfTimes: 1, expiryDate: '2026-01-05 10:15:00' }));
    const v2 = await request(`${sim.baseUrl}/v2/payment/qrcode/create`, { headers, body });
    assert.equal(v2.json.status.code, 9100, v2.text);
    assert.match(v2.json.status.description, /requestUId/);
    const v1 = await request(`${sim.baseUrl}/v1/payment/qrcode/create`, { headers, body });
    assert.equal(v1.status, 200, v1.text);
  });

  test('no token, an unknown token: 401 9300', async () => {
    for (const headers of [client.headers(['authorization']), { ...client.headers(), authorization: 'Bearer nope' }]) {
      const answer = await request(`${sim.baseUrl}/v1/payment/qrcode/create`, {
        headers,
        body: JSON.stringify(client.qrBody('TOK1')),
      });
      assert.equal(answer.status, 401);
      assert.equal(answer.json.status.code, 9300);
    }
  });

  test('a token works until 1800 s of the clock have passed, then is 401 9300', async () => {
    await client.token();
    sim.advance(1799_000);
    assert.equal((await client.create('v1', client.qrBody('EXP1'))).status, 200, 'at 1799 s');
    sim.advance(1_000);
    const expired = await client.create('v1', client.qrBody('EXP1'));
    assert.equal(expired.status, 401);
    assert.equal(expired.json.status.code, 9300);
    assert.equal((await client.token()).status, 200, 'a new token');
    assert.equal((await client.create('v1', client.qrBody('EXP1'))).status, 200);
  });

  test('expire all tokens now (control route): the next call is 9300, a new token works', async () => {
    await client.token();
    const expired = await request(`${sim.url}/__sim/tokens/expire`, { body: '' });
    assert.equal(expired.status, 200);
    assert.ok(expired.json.expired >= 1);
    assert.equal((await client.create('v1', client.qrBody('EXP2'))).json.status.code, 9300);
    await client.token();
    assert.equal((await client.create('v1', client.qrBody('EXP2'))).status, 200);
  });
});
