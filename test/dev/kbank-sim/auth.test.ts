// The gateway-level refusals of the faithful surface, over real HTTP: the OAuth token's client
// credentials and form body, the bearer token on every call (missing, unknown, expired by the
// simulator's clock), unknown paths. All are non-2xx {"code":"openapi_error","message":…}.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { basicAuth, request, SimClient } from '../../support/kbank-sim-http.ts';

describe('kbank-sim: OAuth token and bearer', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => {
    sim = await startKbankSim();
    client = new SimClient(sim);
  });
  after(() => sim?.close());

  const tokenCall = (headers: Record<string, string>, body = 'grant_type=client_credentials') =>
    request(`${sim.url}/v2/oauth/token`, { headers, body });

  test('the token answers the §3 body; expires_in is a string of seconds', async () => {
    const answer = await client.token();
    assert.equal(answer.status, 200);
    assert.match(answer.headers['content-type']!, /^application\/json/);
    assert.equal(answer.json.expires_in, '1799');
    assert.equal(answer.json.status, 'approved');
    assert.equal(answer.json.scope, '');
    assert.match(answer.json.access_token, /^[A-Za-z0-9]{28}$/);
  });

  test('unknown consumer → 401 Invalid ApiKey; wrong secret → 401 Invalid Consumer Secret, none → 401', async () => {
    const { consumerId } = sim.credentials;
    const unknown = await tokenCall(basicAuth('nobody', 'x'));
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.json, { code: 'openapi_error', message: 'Invalid ApiKey' });
    const wrong = await tokenCall(basicAuth(consumerId, 'not-the-secret'));
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.json, { code: 'openapi_error', message: 'Invalid Consumer Secret' });
    const none = await tokenCall({ 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(none.status, 401);
  });

  test('a grant_type other than client_credentials, or a JSON body, → 400 openapi_error', async () => {
    const { consumerId, consumerSecret } = sim.credentials;
    const auth = basicAuth(consumerId, consumerSecret);
    assert.equal((await tokenCall(auth, 'grant_type=password')).status, 400);
    const json = await tokenCall(
      { ...auth, 'content-type': 'application/json' },
      '{"grant_type":"client_credentials"}',
    );
    assert.equal(json.status, 400);
    assert.equal(json.json.code, 'openapi_error');
  });

  test('a QR call without a bearer token, or with an unknown one → 401 Invalid Access Token', async () => {
    const none = await request(`${sim.url}/v1/qrpayment/request`, {
      headers: { 'content-type': 'application/json' },
      body: client.createBody(client.uid()),
    });
    assert.equal(none.status, 401);
    assert.deepEqual(none.json, { code: 'openapi_error', message: 'Invalid Access Token' });
    const unknown = await request(`${sim.url}/v1/qrpayment/v4/inquiry`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer made-up' },
      body: '{}',
    });
    assert.deepEqual(unknown.json, { code: 'openapi_error', message: 'Invalid Access Token' });
    assert.equal(sim.state().partnerTxnUidsUsed, 0, 'a refused call spends no partnerTxnUid');
  });

  test('the token expires after expires_in seconds of the simulator clock → 401 Access Token expired', async () => {
    await client.token();
    sim.advance(1799 * 1000 - 1);
    assert.equal((await client.inquire('NOPE')).json.statusCode, '00', 'still valid 1 ms before');
    sim.advance(1);
    const expired = await client.inquire('NOPE');
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.json, { code: 'openapi_error', message: 'Access Token expired' });
    await client.token();
    assert.equal((await client.inquire('NOPE')).status, 200, 'a new token works');
  });

  test('an unknown path or the wrong method → 404 openapi_error', async () => {
    const path = await client.call('/v1/qrpayment/refund', {});
    assert.equal(path.status, 404);
    assert.equal(path.json.code, 'openapi_error');
    const method = await request(`${sim.url}/v1/qrpayment/request`, {
      method: 'GET',
      headers: { authorization: `Bearer ${client.accessToken}` },
    });
    assert.equal(method.status, 404);
  });

  test('tokenTtlSeconds sets expires_in', async () => {
    const short = await startKbankSim({ tokenTtlSeconds: 60 });
    try {
      assert.equal((await new SimClient(short).token()).json.expires_in, '60');
    } finally {
      await short.close();
    }
  });
});
