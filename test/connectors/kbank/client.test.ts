// connectors/kbank/client.ts over real HTTP(S) against kbank-sim on 127.0.0.1: the token (cached,
// fetched once for many callers, refreshed early and after a 401), back-off for the calls that
// move no money, what a failure of a money-moving call means (outcome known or not), two-way TLS,
// the sandbox headers, and that no secret reaches the logs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProcessorUnavailable } from '../../../src/domain/processor-errors.ts';
import { KbankClient } from '../../../src/connectors/kbank/client.ts';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { SeededIds } from '../../../src/dev/sim-kit/ids.ts';
import { CONTRACT_DAY, kbankConnectorFor, unavailable } from '../../support/connector-harnesses.ts';
import { freePort } from '../../support/gateway-process.ts';
import { makeCertificates } from '../../support/kbank-sim-http.ts';

const TXN = '0199c0de-0000-7000-8000-00000000c11e';
let serial = 0;

function createRequest(connector: ReturnType<typeof kbankConnectorFor>) {
  const attemptId = connector.attemptReference('qr', `${TXN}:${++serial}`);
  return {
    attemptId,
    request: {
      transactionId: TXN,
      merchantId: 'M1',
      amountMinor: 1_000_000n,
      currency: 'THB',
      reference1: 'REF1',
      attemptId,
    },
  };
}

const requestsTo = (sim: KbankSim, path: string) => sim.log().requests.filter((r) => r.path === path);

describe('KBank client against kbank-sim', () => {
  let sim: KbankSim;
  before(async () => {
    sim = await startKbankSim({ now: CONTRACT_DAY });
  });
  after(() => sim?.close());

  test('the token is fetched once for 20 concurrent calls, and then reused', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      const before = sim.state().tokensIssued;
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => connector.queryPayment(attemptId, CONTRACT_DAY)),
      );
      assert.ok(answers.every((a) => a.state === 'requested'));
      await connector.queryPayment(attemptId, CONTRACT_DAY);
      assert.equal(sim.state().tokensIssued - before, 1, 'one token call');
    } finally {
      connector.close();
    }
  });

  test('20 calls that all start without a token still share one token call', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      const before = sim.state().tokensIssued;
      await Promise.all(Array.from({ length: 20 }, () => connector.queryPayment('Q00000000000000', CONTRACT_DAY)));
      assert.equal(sim.state().tokensIssued - before, 1);
    } finally {
      connector.close();
    }
  });

  test('the token is refreshed 60 s before KBank says it expires', async () => {
    sim.setClock(CONTRACT_DAY);
    const connector = kbankConnectorFor(sim);
    try {
      const before = sim.state().tokensIssued;
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      sim.advance((1799 - 61) * 1000);
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      assert.equal(sim.state().tokensIssued - before, 1, 'still the first token 61 s before it expires');
      sim.advance(2000);
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      assert.equal(sim.state().tokensIssued - before, 2, 'a new token 59 s before the old one expires');
    } finally {
      connector.close();
      sim.setClock(CONTRACT_DAY);
    }
  });

  test('a 401 on a business call refreshes the token once and sends the call again', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      const before = sim.state().tokensIssued;
      sim.faults({ endpoint: 'request', fault: 'openapi_error:Access Token expired', status: 401 });
      const { attemptId, request } = createRequest(connector);
      const qr = await connector.createPayment(request);
      assert.equal(qr.reference, attemptId);
      assert.equal(sim.state().tokensIssued - before, 1, 'one new token');
    } finally {
      connector.close();
    }
  });

  test('a second 401 fails cleanly: unavailable, and the QR certainly not created', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      sim.faults({ endpoint: 'request', fault: 'openapi_error:Invalid Access Token', status: 401, count: 2 });
      const { attemptId, request } = createRequest(connector);
      await assert.rejects(connector.createPayment(request), unavailable(false));
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'not_found');
    } finally {
      connector.close();
      sim.clearFaults();
    }
  });

  test('an inquiry answered 429 backs off and tries again', async () => {
    const connector = kbankConnectorFor(sim, {}, { retry: { attempts: 3, baseDelayMs: 60, maxDelayMs: 200 } });
    try {
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      const before = requestsTo(sim, '/v1/qrpayment/v4/inquiry').length;
      sim.faults({ endpoint: 'inquiry', fault: 'rateLimit', count: 2 });
      const started = Date.now();
      assert.equal((await connector.queryPayment('Q00000000000000', CONTRACT_DAY)).state, 'not_found');
      assert.ok(Date.now() - started >= 60, 'it waited before trying again');
      assert.equal(requestsTo(sim, '/v1/qrpayment/v4/inquiry').length - before, 3);
    } finally {
      connector.close();
    }
  });

  test('an inquiry that keeps failing gives up after its tries: unavailable', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 3 });
      await assert.rejects(connector.queryPayment('Q00000000000000', CONTRACT_DAY), unavailable(false));
    } finally {
      connector.close();
      sim.clearFaults();
    }
  });

  test('a create is never sent twice: 429 is unavailable with a known outcome, 5xx with an unknown one', async () => {
    const connector = kbankConnectorFor(sim);
    try {
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY);
      const before = requestsTo(sim, '/v1/qrpayment/request').length;
      sim.faults({ endpoint: 'request', fault: 'rateLimit' });
      await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(false));
      sim.faults({ endpoint: 'request', fault: 'http504' });
      const { attemptId, request } = createRequest(connector);
      await assert.rejects(connector.createPayment(request), unavailable(true));
      assert.equal(requestsTo(sim, '/v1/qrpayment/request').length - before, 2, 'each sent once');
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'requested', 'the 504 was applied');
    } finally {
      connector.close();
    }
  });

  test('a create whose answer never comes: unavailable, outcome unknown, and KBank did create the QR', async () => {
    const connector = kbankConnectorFor(sim, { timeoutMs: 1000 });
    try {
      await connector.queryPayment('Q00000000000000', CONTRACT_DAY); // the token, so only the create is timed
      sim.faults({ endpoint: 'request', fault: 'timeout' });
      const { attemptId, request } = createRequest(connector);
      const started = Date.now();
      await assert.rejects(connector.createPayment(request), unavailable(true));
      const waited = Date.now() - started;
      assert.ok(waited >= 1000 && waited < 5000, `gave up after the timeout (${waited} ms)`);
      const record = sim.state().records.find((r) => r.partnerTxnUid === attemptId);
      assert.equal(record?.status, 'REQUESTED');
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'requested');
    } finally {
      connector.close();
    }
  });

  test('a refused connection: unavailable, and the outcome is known (nothing arrived)', async () => {
    const port = await freePort(); // nothing listens there
    const connector = kbankConnectorFor(sim, { baseUrl: `http://127.0.0.1:${port}` });
    try {
      await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(false));
    } finally {
      connector.close();
    }
  });

  test('wrong consumer credentials: unavailable, naming the settings to check, without the secret', async () => {
    const connector = kbankConnectorFor(sim, { consumerSecret: 'not-the-secret-at-all' });
    try {
      await assert.rejects(connector.queryPayment('Q00000000000000', CONTRACT_DAY), (error: unknown) => {
        assert.ok(error instanceof ProcessorUnavailable && !error.outcomeUnknown);
        assert.match(error.message, /HTTP 401 Invalid Consumer Secret.*KBANK_CONSUMER_SECRET/);
        assert.doesNotMatch(error.message, /not-the-secret-at-all/);
        return true;
      });
    } finally {
      connector.close();
    }
  });

  test("test mode sends KBank's sandbox headers: x-test-mode and each call's env-id", async () => {
    const connector = kbankConnectorFor(sim, { testMode: true });
    try {
      const { request } = createRequest(connector);
      const qr = await connector.createPayment(request);
      assert.ok(qr.qrPayload.length > 0);
      const [token] = requestsTo(sim, '/v2/oauth/token').slice(-1);
      const [create] = requestsTo(sim, '/v1/qrpayment/request').slice(-1);
      assert.equal(token!.headers['env-id'], 'OAUTH2');
      assert.equal(create!.headers['x-test-mode'], 'true');
      assert.equal(create!.headers['env-id'], 'QR002');
      assert.match(create!.handling, /scenario:QR002/);
    } finally {
      connector.close();
    }
  });

  test('http:// only to a loopback host; KBank production only with a client certificate', () => {
    const settings = { consumerId: 'c', consumerSecret: 's', testMode: false, timeoutMs: 1000, now: Date.now };
    assert.throws(() => new KbankClient({ ...settings, baseUrl: 'http://kbank.example' }), /loopback/);
    assert.throws(() => new KbankClient({ ...settings, baseUrl: 'http://10.0.0.1:8787' }), /loopback/);
    assert.throws(
      () => new KbankClient({ ...settings, baseUrl: 'https://openapi.kasikornbank.com' }),
      /KBANK_TLS_CERT and KBANK_TLS_KEY/,
    );
    for (const url of ['http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:8787', 'https://kbank.example'])
      new KbankClient({ ...settings, baseUrl: url }).close();
  });

  test('the client logs calls without any secret, token or body', async () => {
    const lines: string[] = [];
    const logger = {
      debug: (details: object, message: string) => lines.push(JSON.stringify({ ...details, message })),
      warn: (details: object, message: string) => lines.push(JSON.stringify({ ...details, message })),
    };
    const fresh = await startKbankSim({ now: CONTRACT_DAY, seed: 'client-logs' });
    const connector = kbankConnectorFor(fresh, {}, { logger });
    try {
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      assert.ok(fresh.pay(attemptId).ok);
      await connector.queryPayment(attemptId, CONTRACT_DAY);
      await connector.cancelPayment(attemptId);
      const text = lines.join('\n');
      assert.ok(lines.length >= 4, text);
      const { consumerSecret, partnerSecret } = fresh.credentials;
      // The simulator's first access token, from the same seed.
      const accessToken = new SeededIds('client-logs').alnum('access-token', 28);
      for (const secret of [consumerSecret, partnerSecret, accessToken]) assert.ok(!text.includes(secret), secret);
    } finally {
      connector.close();
      await fresh.close();
    }
  });
});

describe('KBank client over two-way TLS (kbank-sim with requireMtls)', () => {
  const certificates = makeCertificates();
  let sim: KbankSim;
  before(async () => {
    if (!certificates) return;
    sim = await startKbankSim({
      now: CONTRACT_DAY,
      tls: { cert: certificates.serverCert, key: certificates.serverKey, ca: certificates.ca },
      requireMtls: true,
    });
  });
  after(() => sim?.close());
  const skip = certificates ? false : 'openssl is not installed';

  test('with the client certificate: the token and a QR', { skip }, async () => {
    const connector = kbankConnectorFor(
      sim,
      {},
      { tls: { cert: certificates!.clientCert, key: certificates!.clientKey, ca: certificates!.ca } },
    );
    try {
      assert.match(sim.url, /^https:/);
      const { request } = createRequest(connector);
      const qr = await connector.createPayment(request);
      assert.ok(qr.qrPayload.startsWith('000201'));
    } finally {
      connector.close();
    }
  });

  test(
    'without it: refused in the handshake, unavailable with a known outcome, nothing created',
    { skip },
    async () => {
      const connector = kbankConnectorFor(sim, {}, { tls: { ca: certificates!.ca } });
      try {
        const before = sim.state().records.length;
        await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(false));
        assert.equal(sim.state().records.length, before);
      } finally {
        connector.close();
      }
    },
  );
});

/** A loopback port nothing listens on. */
