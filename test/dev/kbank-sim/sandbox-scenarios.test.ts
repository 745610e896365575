// KBank's 16 sandbox exercises replayed against the simulator's scenario mode (`x-test-mode: true`
// + `env-id`), with the fixed test data and ids KBank's exercises send, over real HTTP(S). Each
// answer echoes the request's partnerTxnUid and partnerId and gives the documented outcome;
// scenario answers change no state and spend no partnerTxnUid.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { SANDBOX_EXERCISES, SANDBOX_TEST_DATA } from '../../../src/dev/kbank-sim/sandbox-scenarios.ts';
import { ENDPOINTS } from '../../../src/dev/kbank-sim/endpoints.ts';
import { verifyThaiQrPayload } from '../../../src/domain/thai-qr.ts';
import { makeCertificates, request, SimClient } from '../../support/kbank-sim-http.ts';

const TEST_MODE = { 'x-test-mode': 'true' };
const TOKEN_KEYS = ['developer.email', 'token_type', 'client_id', 'access_token', 'scope', 'expires_in', 'status'];

function exerciseBody(partnerTxnUid: string, origPartnerTxnUid: string | undefined, envId: string): string {
  const fields = {
    partnerTxnUid,
    partnerId: SANDBOX_TEST_DATA.partnerId,
    partnerSecret: SANDBOX_TEST_DATA.partnerSecret,
    requestDt: '2026-01-05T10:15:30.1234567+07:00',
    merchantId: SANDBOX_TEST_DATA.merchantId,
    ...(origPartnerTxnUid !== undefined && { origPartnerTxnUid }),
  };
  if (envId !== 'QR002' && envId !== 'QR003') return JSON.stringify(fields);
  const create = {
    ...fields,
    qrType: envId === 'QR002' ? '3' : '4',
    txnCurrencyCode: 'THB',
    reference1: 'INV001',
    reference2: 'HELLOWORLD',
    reference3: 'INV001',
    reference4: 'INV001',
  };
  return `${JSON.stringify(create).slice(0, -1)},"txnAmount":100.00}`;
}

describe('sandbox scenarios: exercises 1–15 over HTTP', () => {
  let sim: KbankSim;
  let client: SimClient;
  before(async () => {
    sim = await startKbankSim();
    client = new SimClient(sim);
  });
  after(() => sim?.close());

  test('exercise 1 (OAUTH2): the token with the seven string members, expires_in a string', async () => {
    const answer = await client.token({ ...TEST_MODE, 'env-id': 'OAUTH2' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json), TOKEN_KEYS);
    for (const key of TOKEN_KEYS) assert.equal(typeof answer.json[key], 'string', key);
    assert.equal(answer.json.expires_in, '1799');
    assert.equal(answer.json.token_type, 'Bearer');
    assert.equal(answer.json.client_id, sim.credentials.consumerId);
    assert.equal(sim.log().requests.at(-1)!.handling, 'scenario:OAUTH2');
  });

  for (const exercise of SANDBOX_EXERCISES.filter((e) => e.endpoint !== 'token' && e.endpoint !== 'ssl')) {
    test(`exercise ${exercise.exercise} (${exercise.envId}): ${exercise.title}`, async () => {
      if (client.accessToken === '') await client.token({ ...TEST_MODE, 'env-id': 'OAUTH2' });
      const envId = exercise.envId!;
      const answer = await client.call(
        ENDPOINTS[exercise.endpoint].path,
        exerciseBody(exercise.partnerTxnUid!, exercise.origPartnerTxnUid, envId),
        { ...TEST_MODE, 'env-id': envId },
      );
      assert.equal(answer.status, exercise.expect.httpStatus, answer.text);
      assert.equal(answer.json.partnerTxnUid, exercise.partnerTxnUid, 'the request id is echoed');
      assert.equal(answer.json.partnerId, SANDBOX_TEST_DATA.partnerId, 'the partner id is echoed');
      assert.equal(answer.json.statusCode, exercise.expect.statusCode);
      if (exercise.expect.statusCode === '00') {
        assert.equal(answer.json.errorCode, null);
        assert.equal(answer.json.errorDesc, null);
      } else {
        assert.equal(answer.json.errorCode, exercise.expect.errorCode);
        assert.match(answer.json.errorDesc, /^.+ \([A-Z0-9_]+\)$/, 'errorDesc ends with its internal code');
      }
      if (exercise.expect.txnStatus !== undefined) {
        assert.equal(answer.json.txnStatus, exercise.expect.txnStatus);
        assert.equal(answer.json.merchantId, SANDBOX_TEST_DATA.merchantId);
        assert.equal(answer.json.txnAmount, '100.00', 'an inquiry reports the amount as a string');
        assert.equal(answer.json.qrType, '3');
        assert.equal(
          typeof answer.json.txnNo,
          ['PAID', 'VOIDED'].includes(answer.json.txnStatus) ? 'string' : 'undefined',
        );
      }
      if (exercise.endpoint === 'request') {
        const qr = verifyThaiQrPayload(answer.json.qrCode);
        assert.ok(qr.ok, qr.errors.join('; '));
        assert.equal(qr.fields['54'], '100.00');
        assert.equal(answer.json.accountName, 'Kasikorn API');
        assert.deepEqual(answer.json.sof, [envId === 'QR002' ? 'PP' : 'CC']);
      }
      if (exercise.endpoint === 'void' && exercise.expect.statusCode === '00') {
        assert.match(answer.json.txnNo, /^\d{20}$/);
      }
      assert.equal(sim.log().requests.at(-1)!.handling, `scenario:${envId}`);
    });
  }

  test('scenario answers change no state and spend no partnerTxnUid (the exercises reuse ids)', () => {
    const state = sim.state();
    assert.deepEqual(state.records, []);
    assert.equal(state.partnerTxnUidsUsed, 0);
  });

  test('a scenario still needs a valid access token', async () => {
    const answer = await request(`${sim.url}/v1/qrpayment/v4/inquiry`, {
      headers: { 'content-type': 'application/json', ...TEST_MODE, 'env-id': 'QR004' },
      body: exerciseBody('PARTNERTEST0002', 'PARTNERTEST0001', 'QR004'),
    });
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.json, { code: 'openapi_error', message: 'Invalid Access Token' });
  });

  test('an env-id of another resource, or one the sandbox does not know, is refused 400 openapi_error', async () => {
    for (const envId of ['QR004', 'QR009', 'OAUTH2']) {
      const answer = await client.call('/v1/qrpayment/cancel', exerciseBody('PARTNERTEST0006', 'X', envId), {
        ...TEST_MODE,
        'env-id': envId,
      });
      assert.equal(answer.status, 400, envId);
      assert.equal(answer.json.code, 'openapi_error');
    }
  });

  test('a scenario whose body is not JSON answers EMBR with HTTP 200', async () => {
    const answer = await client.call('/v1/qrpayment/request', '{"partnerTxnUid":', { ...TEST_MODE, 'env-id': 'QR002' });
    assert.equal(answer.status, 200);
    assert.equal(answer.json.statusCode, '10');
    assert.equal(answer.json.errorDesc, 'Invalid JSON. (EMBR)');
    assert.equal(answer.json.qrCode, null);
  });

  test('without x-test-mode the same call reaches the stateful model (no sandbox partner there)', async () => {
    const answer = await client.call('/v1/qrpayment/v4/inquiry', exerciseBody('PARTNERTEST0002', 'P1', 'QR004'), {
      'env-id': 'QR004',
    });
    assert.equal(answer.json.errorCode, 'authentication_error');
    assert.equal(answer.json.errorDesc, 'Wrong partner key. (EMA)');
  });
});

describe('sandbox scenarios switched off', () => {
  test('sandboxScenarios: false ignores x-test-mode and env-id', async () => {
    const sim = await startKbankSim({ sandboxScenarios: false });
    try {
      const client = new SimClient(sim);
      await client.token({ ...TEST_MODE, 'env-id': 'OAUTH2' });
      assert.equal(sim.log().requests.at(-1)!.handling, 'stateful');
      const answer = await client.call('/v1/qrpayment/v4/inquiry', exerciseBody('PARTNERTEST0002', 'P1', 'QR004'), {
        ...TEST_MODE,
        'env-id': 'QR004',
      });
      assert.equal(answer.json.errorDesc, 'Wrong partner key. (EMA)');
    } finally {
      await sim.close();
    }
  });
});

const certificates = makeCertificates();

describe('exercise 16: two-way TLS', { skip: certificates === null ? 'openssl is not installed' : false }, () => {
  let sim: KbankSim;
  before(async () => {
    const c = certificates!;
    sim = await startKbankSim({ tls: { cert: c.serverCert, key: c.serverKey, ca: c.ca }, requireMtls: true });
  });
  after(() => sim?.close());

  test('GET /exercise/ssl with a client certificate: 200 {status, certificateObjs: {subject}}', async () => {
    const c = certificates!;
    const client = new SimClient(sim, { ca: c.ca, cert: c.clientCert, key: c.clientKey });
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await client.token({ ...TEST_MODE, 'env-id': 'OAUTH2' })).status, 200);
    const answer = await request(`${sim.url}/exercise/ssl`, {
      method: 'GET',
      headers: { authorization: `Bearer ${client.accessToken}`, 'x-test-mode': 'True' },
      tls: client.tls!,
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.status, 'success');
    assert.match(answer.json.certificateObjs.subject, /CN=partner-client/);
  });

  test('requireMtls: a client without a certificate is refused at the TLS handshake', async () => {
    await assert.rejects(
      request(`${sim.url}/v2/oauth/token`, { body: 'grant_type=client_credentials', tls: { ca: certificates!.ca } }),
    );
  });

  test('without requireMtls the exercise answers 401 when no certificate was presented', async () => {
    const c = certificates!;
    const open = await startKbankSim({ tls: { cert: c.serverCert, key: c.serverKey, ca: c.ca } });
    try {
      const client = new SimClient(open, { ca: c.ca });
      await client.token();
      const answer = await request(`${open.url}/exercise/ssl`, {
        method: 'GET',
        headers: { authorization: `Bearer ${client.accessToken}` },
        tls: { ca: c.ca },
      });
      assert.equal(answer.status, 401);
      assert.equal(answer.json.code, 'openapi_error');
    } finally {
      await open.close();
    }
  });
});
