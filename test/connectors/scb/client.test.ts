// connectors/scb/client.ts and the connector over real HTTP against scb-sim on 127.0.0.1: the token
// (cached, fetched once for many callers, refreshed before its expiry, once more after 9300), the
// headers of every call (a new 32-character requestUId each), back-off for the inquiry, what a
// failed create means (outcome known or not; never sent twice), the QR checked before it is
// returned, the inquiry across the Bangkok dates a payment can carry, a QR paid twice, and that no
// secret reaches a message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { CreatePaymentRequest } from '../../../src/app/ports/processor.ts';
import { GatewayError } from '../../../src/domain/errors.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../../src/domain/processor-errors.ts';
import { thaiQrReferenceFor } from '../../../src/domain/thai-qr.ts';
import { startScbSim, type ScbSim } from '../../../src/dev/scb-sim/server.ts';
import { CONTRACT_DAY, scbConnectorFor, unavailable } from '../../support/connector-harnesses.ts';
import { freePort } from '../../support/gateway-process.ts';

const HOUR = 3_600_000;
let serial = 0;

function createRequest(connector: ReturnType<typeof scbConnectorFor>, amountMinor = 1_000_000n) {
  const transactionId = `0199c0de-0000-7000-8000-${String(++serial).padStart(12, '0')}`;
  const attemptId = connector.attemptReference('qr', `${transactionId}:1`);
  const request: CreatePaymentRequest = {
    transactionId,
    merchantId: 'M1',
    amountMinor,
    currency: 'THB',
    reference1: thaiQrReferenceFor(transactionId),
    attemptId,
  };
  return { attemptId, request };
}

const requestsTo = (sim: ScbSim, suffix: string) => sim.log().requests.filter((r) => r.path.endsWith(suffix));
const CREATE = '/v2/payment/qrcode/create';
const INQUIRY = '/v1/payment/billpayment/inquiry';
const TOKEN = '/v1/oauth/token';

describe('SCB client against scb-sim', () => {
  let sim: ScbSim;
  before(async () => {
    sim = await startScbSim({ now: CONTRACT_DAY });
  });
  after(() => sim?.close());

  test('the token is fetched once for 20 concurrent calls, and then reused', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      const before = sim.state().tokensIssued;
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => connector.queryPayment(attemptId, CONTRACT_DAY)),
      );
      assert.ok(answers.every((a) => a.state === 'requested'));
      assert.equal(sim.state().tokensIssued - before, 1, 'one token call');
    } finally {
      connector.close();
    }
  });

  test('each call: our API key, English, a new 32-character requestUId; the token after the first', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      const from = sim.log().requests.length;
      await connector.createPayment(createRequest(connector).request);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      const calls = sim.log().requests.slice(from);
      assert.deepEqual(
        calls.map((c) => c.path.replace(/^\/partners\/sandbox/, '')),
        [TOKEN, CREATE, INQUIRY],
      );
      const uids = calls.map((c) => c.headers.requestuid);
      for (const call of calls) {
        assert.equal(call.headers.resourceownerid, sim.credentials.apiKey);
        assert.equal(call.headers['accept-language'], 'EN');
        assert.match(call.headers.requestuid ?? '', /^[A-Za-z0-9]{32}$/);
      }
      assert.equal(new Set(uids).size, uids.length, 'new per call');
      assert.equal(calls[0]!.headers.authorization, undefined, 'the token call has no token');
      assert.match(calls[1]!.headers.authorization ?? '', /^Bearer /);
    } finally {
      connector.close();
    }
  });

  test("the token is refreshed before SCB's expiry, so no call is refused for it", async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      const before = sim.state().tokensIssued;
      const from = sim.log().requests.length;
      sim.advance(1800_000 - 30_000); // inside the last minute of the token's 30
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      assert.equal(sim.state().tokensIssued - before, 1, 'a new token first');
      assert.ok(
        sim
          .log()
          .requests.slice(from)
          .every((r) => r.answer?.status === 200),
        'nothing refused',
      );
    } finally {
      connector.close();
    }
  });

  test('a token SCB expired mid-run (9300): one new token, the same call again, once', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      sim.expireTokens();
      const before = requestsTo(sim, CREATE).length;
      const { attemptId, request } = createRequest(connector);
      const qr = await connector.createPayment(request);
      assert.equal(qr.reference, attemptId);
      const creates = requestsTo(sim, CREATE).slice(before);
      assert.deepEqual(
        creates.map((r) => r.answer?.status),
        [401, 200],
        'refused for the token, then sent again with a new one',
      );
      assert.equal(
        sim.state().qrs.filter((q) => q.ref1 === attemptId).length,
        1,
        'SCB made one QR: the refused create was not processed',
      );
    } finally {
      connector.close();
    }
  });

  test('the inquiry backs off and tries again on 5xx; a create is never sent twice', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      const inquiries = requestsTo(sim, INQUIRY).length;
      sim.faults({ endpoint: 'inquiry', fault: 'down', count: 2 });
      assert.equal((await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY)).state, 'requested');
      assert.equal(requestsTo(sim, INQUIRY).length - inquiries, 3);

      sim.faults({ endpoint: 'inquiry', fault: 'http500', count: 3 });
      await assert.rejects(connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY), unavailable(false));

      const creates = requestsTo(sim, CREATE).length;
      sim.faults({ endpoint: 'createV2', fault: 'http504' });
      const { attemptId, request } = createRequest(connector);
      await assert.rejects(connector.createPayment(request), unavailable(true));
      sim.faults({ endpoint: 'createV2', fault: 'down' });
      await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(true));
      assert.equal(requestsTo(sim, CREATE).length - creates, 2, 'each sent once');
      assert.equal(sim.state().qrs.filter((q) => q.ref1 === attemptId).length, 1, 'the 504 was applied');
    } finally {
      connector.close();
      sim.clearFaults();
    }
  });

  test('a create whose answer never comes: unavailable, outcome unknown, and SCB did create the QR', async () => {
    const connector = scbConnectorFor(sim, { timeoutMs: 300 });
    try {
      sim.setClock(CONTRACT_DAY);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY); // the token, so only the create is timed
      sim.faults({ endpoint: 'createV2', fault: 'timeout' });
      const { attemptId, request } = createRequest(connector);
      await assert.rejects(connector.createPayment(request), unavailable(true));
      assert.equal(sim.state().qrs.filter((q) => q.ref1 === attemptId).length, 1);
      // Nothing paid on it: requested while it could be paid.
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'requested');
    } finally {
      connector.close();
      sim.clearFaults();
    }
  });

  test('a refused connection: unavailable, and the outcome is known (nothing arrived)', async () => {
    const port = await freePort(); // nothing listens there
    const connector = scbConnectorFor(sim, { baseUrl: `http://127.0.0.1:${port}/partners/sandbox` });
    try {
      await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(false));
    } finally {
      connector.close();
    }
  });

  test('wrong credentials: unavailable, naming the settings to check, without the secret', async () => {
    const connector = scbConnectorFor(sim, { apiSecret: 'not-the-secret-at-all' });
    try {
      await assert.rejects(connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY), (error: unknown) => {
        assert.ok(error instanceof ProcessorUnavailable && !error.outcomeUnknown);
        assert.match(error.message, /SCB token: HTTP 401 9500.*check SCB_API_KEY and SCB_API_SECRET/);
        assert.doesNotMatch(error.message, /not-the-secret-at-all/);
        return true;
      });
    } finally {
      connector.close();
    }
  });

  test('a QR for another biller is refused by SCB: unavailable, the outcome known', async () => {
    const connector = scbConnectorFor(sim, { billerId: '999999999999999' });
    try {
      sim.setClock(CONTRACT_DAY);
      await assert.rejects(connector.createPayment(createRequest(connector).request), (error: unknown) => {
        assert.ok(error instanceof ProcessorUnavailable && !error.outcomeUnknown, String(error));
        assert.match(error.message, /^SCB refused the QR: 1\d{3}/);
        return true;
      });
    } finally {
      connector.close();
    }
  });

  test('the QR: SCB’s payload for our biller, ref1 and amount, paid once, until SCB_QR_TTL', async () => {
    const connector = scbConnectorFor(sim, { qrTtlMs: 15 * 60_000 });
    try {
      sim.setClock(CONTRACT_DAY);
      const { attemptId, request } = createRequest(connector, 1_234_500n);
      const qr = await connector.createPayment(request);
      assert.deepEqual([qr.issuer, qr.accountName, qr.expiresAt], ['SCB', null, CONTRACT_DAY + 15 * 60_000]);
      const [made] = sim.state().qrs.filter((q) => q.ref1 === attemptId);
      assert.equal(made?.qrRawData, qr.qrPayload, 'verbatim');
      assert.equal(made?.ref2, request.reference1, 'ref2: the transaction’s reference, no personal data');
      assert.equal(made?.ref3, sim.credentials.ref3Prefix);
      assert.equal(made?.numberOfTimes, 1);
      assert.equal(made?.expiresAt, '2026-01-05T10:15:00.000+07:00');
    } finally {
      connector.close();
    }
  });

  test('SCB_QR=local: the same tag-30 payload, built without a call', async () => {
    const connector = scbConnectorFor(sim, { qrMode: 'local' });
    try {
      sim.setClock(CONTRACT_DAY);
      await connector.queryPayment('QNOSUCHPAYMENT1', CONTRACT_DAY);
      const calls = sim.log().requests.length;
      const { attemptId, request } = createRequest(connector, 1_234_500n);
      const qr = await connector.createPayment(request);
      assert.equal(sim.log().requests.length, calls, 'no call');
      assert.match(qr.qrPayload, new RegExp(`0115${sim.credentials.billerId}02${attemptId.length}${attemptId}`));
      assert.match(qr.qrPayload, /5406123\.45/);
    } finally {
      connector.close();
    }
  });

  test('paid: the payment number, the exact amount, our biller and the payer as SCB reports it', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      const { attemptId, request } = createRequest(connector, 1_234_500n);
      await connector.createPayment(request);
      sim.advance(5 * 60_000);
      const paid = sim.pay({
        ref1: attemptId,
        payerAccountNumber: '1234567890',
        payerName: 'SOMCHAI JAIDEE',
        sendingBankCode: '004',
        maskPayer: true,
      });
      assert.ok(paid.ok);
      const status = await connector.queryPayment(attemptId, CONTRACT_DAY);
      assert.deepEqual(status, {
        state: 'paid',
        processorTxnNo: paid.payment.transactionId,
        paidAmountMinor: 1_234_500n,
        currency: 'THB',
        processorMerchantId: sim.credentials.billerId,
        payer: { bankCode: '004', accountNumber: paid.record.payerAccountNumber, name: 'SOMCHAI JAIDEE' },
        alsoPaid: [],
      });
      assert.match(status.payer!.accountNumber!, /x/, 'masked as SCB sent it');
    } finally {
      connector.close();
    }
  });

  test('the inquiry asks each Bangkok date from the creation to the expiry (none in the future)', async () => {
    const connector = scbConnectorFor(sim, { qrTtlMs: 30 * 60_000 });
    try {
      // Created at 23:50 in Bangkok, paid at 00:10 the next day.
      const createdAt = Date.parse('2026-01-05T23:50:00+07:00');
      sim.setClock(createdAt);
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      const from = requestsTo(sim, INQUIRY).length;
      await connector.queryPayment(attemptId, createdAt);
      assert.equal(requestsTo(sim, INQUIRY).length - from, 1, 'only today while tomorrow has not come');
      sim.setClock(createdAt + 20 * 60_000);
      const paid = sim.pay({ ref1: attemptId });
      assert.ok(paid.ok);
      const status = await connector.queryPayment(attemptId, createdAt);
      assert.equal(status.state, 'paid');
      assert.equal(status.processorTxnNo, paid.payment.transactionId, 'found on the next day');
      sim.setClock(createdAt + 3 * HOUR);
      const later = requestsTo(sim, INQUIRY).length;
      assert.equal((await connector.queryPayment(attemptId, createdAt)).state, 'paid');
      assert.equal(requestsTo(sim, INQUIRY).length - later, 2, 'the two dates, not today’s third');
    } finally {
      connector.close();
    }
  });

  test('a QR paid twice: the first payment is reported, the other listed for a person', async () => {
    const connector = scbConnectorFor(sim);
    try {
      sim.setClock(CONTRACT_DAY);
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      // SCB documents no idempotency: a v1 create with the same ref1 is another QR, with no use limit.
      await createV1(sim, attemptId, '100.00');
      const first = sim.pay({ ref1: attemptId });
      sim.advance(60_000);
      const second = sim.pay({ ref1: attemptId });
      assert.ok(first.ok && second.ok);
      const status = await connector.queryPayment(attemptId, CONTRACT_DAY);
      assert.equal(status.state, 'paid');
      assert.equal(status.processorTxnNo, first.payment.transactionId);
      assert.deepEqual(status.alsoPaid, [
        { processorTxnNo: second.payment.transactionId, paidAmountMinor: 1_000_000n },
      ]);
    } finally {
      connector.close();
    }
  });

  test('nothing paid: requested while the QR may be paid (with a minute of skew), expired after', async () => {
    const connector = scbConnectorFor(sim, { qrTtlMs: 10 * 60_000 });
    try {
      sim.setClock(CONTRACT_DAY);
      const { attemptId, request } = createRequest(connector);
      await connector.createPayment(request);
      sim.setClock(CONTRACT_DAY + 10 * 60_000 + 59_000);
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'requested');
      sim.setClock(CONTRACT_DAY + 11 * 60_000 + 1);
      assert.equal((await connector.queryPayment(attemptId, CONTRACT_DAY)).state, 'expired');
    } finally {
      connector.close();
    }
  });

  test('no cancel, no refunds: cancelPayment refuses; a refund says how to pay it back', async () => {
    const connector = scbConnectorFor(sim);
    try {
      await assert.rejects(connector.cancelPayment('QANY'), /SCB cannot cancel a QR/);
      await assert.rejects(
        connector.refund({
          refundId: 'rfd_1',
          transactionId: 'x',
          merchantId: 'M1',
          amountMinor: 100n,
          currency: 'THB',
          reason: null,
          paymentAmountMinor: 100n,
          refundedMinor: 0n,
          paidAt: null,
          paymentReference: 'QANY',
        }),
        (error: unknown) =>
          error instanceof GatewayError &&
          error.tag === 'REFUND_NOT_ALLOWED' &&
          /no refund API.*bank transfer.*console.*or with `gateway refund record`/.test(error.message),
      );
    } finally {
      connector.close();
    }
  });
});

describe('SCB client against a bank that answers badly', () => {
  /** A stand-in for SCB on 127.0.0.1 answering each call with what `answer` says. */
  async function bank(answer: (path: string) => { status: number; body: string }) {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        const { status, body } = answer(req.url ?? '');
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/partners`, seen, close: () => new Promise((r) => server.close(r)) };
  }
  const token = {
    status: 200,
    body: '{"status":{"code":1000,"description":"Success"},"data":{"accessToken":"t","expiresIn":1800}}',
  };

  test('a token refused twice (9300 after a new one): unavailable, the outcome known', async () => {
    const fake = await bank((path) =>
      path.endsWith('/oauth/token')
        ? token
        : { status: 401, body: '{"status":{"code":9300,"description":"Invalid temporary token"}}' },
    );
    const connector = scbConnectorFor(await placeholderSim(), { baseUrl: fake.url });
    try {
      await assert.rejects(connector.createPayment(createRequest(connector).request), (error: unknown) => {
        assert.ok(unavailable(false)(error));
        assert.match((error as Error).message, /refused twice/);
        return true;
      });
      assert.deepEqual(fake.seen, [
        '/partners/v1/oauth/token',
        '/partners/v2/payment/qrcode/create',
        '/partners/v1/oauth/token',
        '/partners/v2/payment/qrcode/create',
      ]);
    } finally {
      connector.close();
      await fake.close();
    }
  });

  test('malformed answers are never believed', async () => {
    const answers: Record<string, { status: number; body: string }> = {
      html: { status: 200, body: '<html>maintenance</html>' },
      noQr: { status: 200, body: '{"status":{"code":1000},"data":{"qrImage":"x"}}' },
      otherBiller: {
        status: 200,
        body: JSON.stringify({
          status: { code: 1000 },
          data: [
            { transactionId: 't1', amount: '100.00', currencyCode: '764', payeeProxyId: '1', billPaymentRef1: 'X' },
          ],
        }),
      },
    };
    let current = answers.html!;
    const fake = await bank((path) => (path.endsWith('/oauth/token') ? token : current));
    const connector = scbConnectorFor(await placeholderSim(), { baseUrl: fake.url });
    try {
      await assert.rejects(connector.createPayment(createRequest(connector).request), unavailable(true));
      await assert.rejects(connector.queryPayment('QX', Date.now()), unavailable(false));
      current = answers.noQr!;
      await assert.rejects(connector.createPayment(createRequest(connector).request), ProcessorMismatch);
      current = answers.otherBiller!;
      await assert.rejects(connector.queryPayment('QX', Date.now()), /to biller 1, not ours/);
    } finally {
      connector.close();
      await fake.close();
    }
  });
});

let placeholder: ScbSim | undefined;
/** A simulator only for its credentials and clock (the calls go to the test's own bank). */
async function placeholderSim(): Promise<ScbSim> {
  placeholder ??= await startScbSim({ now: CONTRACT_DAY });
  return placeholder;
}
after(() => placeholder?.close());

/** A v1 QR at the simulator (no use limit, no expiry) with the given ref1. */
async function createV1(sim: ScbSim, ref1: string, amount: string): Promise<void> {
  const headers = {
    'content-type': 'application/json',
    resourceOwnerId: sim.credentials.apiKey,
    requestUId: 'A'.repeat(32),
    'accept-language': 'EN',
  };
  const tokenAnswer = await fetch(`${sim.baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ applicationKey: sim.credentials.apiKey, applicationSecret: sim.credentials.apiSecret }),
  });
  const { data } = (await tokenAnswer.json()) as { data: { accessToken: string } };
  const created = await fetch(`${sim.baseUrl}/v1/payment/qrcode/create`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${data.accessToken}` },
    body: JSON.stringify({
      qrType: 'PP',
      ppType: 'BILLERID',
      ppId: sim.credentials.billerId,
      amount,
      ref1,
      ref2: 'REF2',
      ref3: sim.credentials.ref3Prefix,
    }),
  });
  assert.equal(created.status, 200, await created.text());
}
