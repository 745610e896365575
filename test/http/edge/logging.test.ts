// What the gateway writes to its logs for a representative mix of merchant and customer
// requests: every request is traceable by its id, and no secret or payer account number
// ever appears (docs/operations.md "Logs": secrets never appear in logs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededIds } from '../../../src/dev/sim-kit/ids.ts';
import { startKbankSim, type KbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { CONTRACT_DAY, kbankEnvFor } from '../../support/connector-harnesses.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  fixture,
  initiationBody,
  post,
  startTestGateway,
  TEST_SECRET_KEY_HEX,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type LogLine = Record<string, any>;

for (const { dialect, skip } of await testDialects()) {
  for (const level of ['info', 'trace'] as const) {
    describe(`logs at ${level} [${dialect}]`, { skip }, () => {
      let gw: TestGateway;
      let creds: MerchantCredentials;
      /** Everything the logs must never contain, collected while the requests run. */
      const secrets = new Map<string, string>();
      const requestIds: string[] = [];

      before(async () => {
        gw = await startTestGateway(dialect, { LOG_LEVEL: level });
        creds = await addMerchant(gw);
        secrets.set('password', creds.password);
        secrets.set('webhook secret', creds.webhook_secret);
        secrets.set('webhook secret body', creds.webhook_secret.replace(/^whsec_/, ''));
        secrets.set('gateway secret key', TEST_SECRET_KEY_HEX);

        const send = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
          const res = await post(gw, url, body, headers);
          requestIds.push(String(res.headers['x-request-id']));
          return res;
        };

        // A success from a real client's body (account 1234567890) and one from the string fixture (0987654321).
        const woo = await send('/transaction/s2s', fixture('woocommerce-thai-debit.json', creds));
        assert.equal(woo.status, 200);
        const ok = await send('/transaction/s2s', initiationBody(creds, { trackid: 'log-ok', bill_amount: '1000' }));
        assert.equal(ok.status, 200);
        for (const r of [woo, ok]) {
          secrets.set(`token ${r.body.trackid}`, r.body.token);
          secrets.set(`redirect id ${r.body.trackid}`, new URL(r.body.redirectUrl).searchParams.get('ID')!);
        }
        secrets.set('payer_account_no (woocommerce)', '1234567890');
        secrets.set('payer_account_no (string fixture)', '0987654321');
        secrets.set('payer account no (failure)', '55501234567');

        // Failures: validation, a wrong password that contains the real one, an unknown merchant, malformed JSON.
        assert.equal(
          (
            await send(
              '/transaction/s2s',
              initiationBody(creds, { trackid: 'log-bad', bill_amount: '99.999', payer_account_no: '55501234567' }),
            )
          ).status,
          400,
        );
        assert.equal(
          (await send('/transaction/s2s', initiationBody(creds, { trackid: 'log-pw', password: `${creds.password}x` })))
            .status,
          401,
        );
        assert.equal(
          (await send('/transaction/s2s', initiationBody({ merchantid: 'NOPE', password: creds.password }))).status,
          401,
        );
        assert.equal(
          (await send('/transaction/s2s', `{"merchantid":"${creds.merchantid}","password":"${creds.password}",`))
            .status,
          400,
        );
        // A client-chosen request id is not trusted.
        assert.equal(
          (
            await send('/transaction/s2s', initiationBody(creds, { trackid: 'log-ok', bill_amount: '1000' }), {
              'x-request-id': 'client-chosen-id',
            })
          ).status,
          200,
        );

        // Status queries, a sandbox completion and the balance query.
        assert.equal(
          (
            await send('/transaction/status', {
              merchantid: creds.merchantid,
              password: creds.password,
              transactionid: ok.body.transactionid,
            })
          ).status,
          200,
        );
        assert.equal(
          (
            await send('/transaction/status', {
              merchantid: creds.merchantid,
              password: creds.password,
              trackid: 'log-missing',
            })
          ).status,
          404,
        );
        assert.equal(
          (
            await send('/sandbox/transaction/complete', {
              merchantid: creds.merchantid,
              password: creds.password,
              transactionid: ok.body.transactionid,
            })
          ).status,
          200,
        );
        assert.equal(
          (
            await send('/transaction/status', {
              merchantid: creds.merchantid,
              password: creds.password,
              trackid: 'log-ok',
            })
          ).status,
          200,
        );
        await send(`/${gw.config.serviceName}InstaPay/QueryPayoutBalance`, {
          merchantid: creds.merchantid,
          password: creds.password,
        });

        // The customer's page: its ID is a bearer capability and must not be logged either.
        for (const url of [new URL(woo.body.redirectUrl), new URL(ok.body.redirectUrl)]) {
          const page = await gw.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
          requestIds.push(String(page.headers['x-request-id']));
        }
      });
      after(() => gw?.close());

      const lines = (): LogLine[] => gw.logs.lines.map((l) => JSON.parse(l) as LogLine);

      test('every log line is one JSON object with a level and a time', () => {
        assert.ok(gw.logs.lines.length >= requestIds.length, 'at least the access line of each request');
        for (const line of lines()) {
          assert.equal(typeof line.level, 'number');
          assert.equal(typeof line.time, 'string');
        }
      });

      for (const what of [
        'password',
        'webhook secret',
        'webhook secret body',
        'gateway secret key',
        'payer_account_no (woocommerce)',
        'payer_account_no (string fixture)',
        'payer account no (failure)',
        'token log-ok',
        'token 4711_1763700000',
        'redirect id log-ok',
        'redirect id 4711_1763700000',
      ]) {
        test(`no ${what} in the logs`, () => {
          const secret = secrets.get(what);
          assert.ok(secret && secret.length >= 10, `collected ${what}`);
          assert.ok(!gw.logs.text.includes(secret), `${what} leaked into the logs`);
        });
      }

      test('request bodies are not logged (no payer e-mail or name)', () => {
        for (const pii of ['buyer@example.com', 'somchai@example.co.th', 'Malee Srisuk'])
          assert.ok(!gw.logs.text.includes(pii), pii);
      });

      test('every request line carries the request id, and each response names it in x-request-id', () => {
        const requestLines = lines().filter((l) => l.req || l.res || /request/.test(String(l.msg)));
        assert.ok(requestLines.length >= requestIds.length, 'an access line per request');
        for (const line of requestLines) assert.match(String(line.reqId), UUID, JSON.stringify(line));
        assert.equal(new Set(requestIds).size, requestIds.length, 'each request has its own id');
        for (const id of requestIds) {
          assert.match(id, UUID);
          const mine = lines().filter((l) => l.reqId === id);
          // One line per request (access-log.ts): method, path, client, status and time together.
          const access = mine.filter((l) => l.msg === 'request completed');
          assert.equal(access.length, 1, `one access line for ${id}`);
          assert.equal(typeof access[0]!.req.method, 'string');
          assert.equal(typeof access[0]!.req.path, 'string');
          assert.equal(typeof access[0]!.res.statusCode, 'number');
          assert.equal(typeof access[0]!.responseTime, 'number');
        }
      });

      test('a client-supplied x-request-id is neither echoed nor logged', () => {
        assert.ok(!requestIds.includes('client-chosen-id'));
        assert.ok(!gw.logs.text.includes('client-chosen-id'));
      });
    });
  }
}

// A KBank payment from end to end — its QR at KBank (kbank-sim), KBank's callback, the paid
// answer, a refund by void — logged at the most verbose level: KBank's secrets, the access token
// and the callback's path token never appear (docs/connectors/kbank.md "Settings").
for (const { dialect, skip } of await testDialects()) {
  describe(`logs of a KBank payment [${dialect}]`, { skip }, () => {
    const SEED = 'logging-test';
    const PATH_TOKEN = 'logging-callback-token-0123456789abcdef';
    let sim: KbankSim;
    let gw: TestGateway;
    before(async () => {
      sim = await startKbankSim({ seed: SEED, now: CONTRACT_DAY });
      gw = await startTestGateway(dialect, {
        LOG_LEVEL: 'trace',
        ...kbankEnvFor(sim, PATH_TOKEN),
        TRANSACTION_TTL: '10m',
      });
      gw.clock.now = CONTRACT_DAY; // the simulator's day, so the void is inside its window
      const creds = await addMerchant(gw);
      const initiated = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: 'kbank-log' }));
      assert.equal(initiated.status, 200);
      const transaction = await gw.services.transactions.findById(creds.merchantid, initiated.body.transactionid);
      // What the hosted page does at the first view, and what the reconciler does after the callback.
      await gw.services.processor.paymentQr.ensure(transaction!);
      const attempt = (await gw.services.store.processorAttempts.latest(transaction!.id, 'qr'))!;
      const paid = sim.pay(attempt.reference);
      assert.ok(paid.ok);
      const callback = await gw.app.inject({
        method: 'POST',
        url: `/processor/kbank/notify/${PATH_TOKEN}`,
        headers: { 'content-type': 'application/json' },
        payload: (await paid.callback).body,
      });
      assert.equal(callback.statusCode, 200);
      const status = await gw.services.processor.connector().queryPayment(attempt.reference, attempt.createdAt);
      assert.equal(await gw.services.processor.sync.applyTo(transaction!, attempt, status), 'completed');
      const refund = await post(gw, '/transaction/refund', {
        merchantid: creds.merchantid,
        password: creds.password,
        transactionid: transaction!.id,
        bill_currencycode: 'THB',
        bill_amount: '9999.99',
      });
      assert.equal(refund.status, 200, refund.raw);
      assert.equal(sim.state().records[0]!.status, 'VOIDED');
    });
    after(async () => {
      await gw?.close();
      await sim?.close();
    });

    test('KBank calls were logged', () => {
      assert.ok(gw.logs.lines.some((l) => l.includes('KBank call answered')));
      assert.ok(gw.logs.lines.some((l) => l.includes('KBank callback received')));
    });

    for (const what of ['consumer secret', 'partner secret', 'access token', 'callback path token']) {
      test(`no KBank ${what} in the logs`, () => {
        const secret = {
          'consumer secret': sim.credentials.consumerSecret,
          'partner secret': sim.credentials.partnerSecret,
          // The simulator's first access token, from the same seed (src/dev/sim-kit/ids.ts).
          'access token': new SeededIds(SEED).alnum('access-token', 28),
          'callback path token': PATH_TOKEN,
        }[what]!;
        assert.ok(secret.length >= 10, `collected ${what}`);
        assert.ok(!gw.logs.text.includes(secret), `${what} leaked into the logs`);
      });
    }
  });
}
