// /metrics (docs/operations.md "/metrics") costs the same whatever the size of the tables (it reads
// nothing from the store), reports request latency per route, payments, notification attempts,
// the open needs-attention items and process / event-loop figures with the version from
// package.json, and can be protected by a token or moved to a port of its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  TEST_SECRET_KEY_HEX,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { assertErrorBody } from '../support/error-body.ts';
import { completePayment, answer, Receiver, startDeliveryGateway, type DeliveryGateway } from '../support/delivery.ts';
import { eventually, killLeftoverGateways, runCliProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { startPayment } from '../support/lifecycle.ts';
import { raiseAttention } from '../support/processor-rows.ts';
import { startAttentionCount } from '../../src/compose/start-services.ts';
import { consoleDepsFrom } from '../../src/compose/console-deps.ts';
import { createLogger } from '../../src/logger.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`)))
      return Number(line.split(' ').at(-1));
  }
  return undefined;
}

async function scrape(gw: TestGateway, headers: Record<string, string> = {}) {
  const res = await gw.app.inject({ method: 'GET', url: '/metrics', headers });
  return { status: res.statusCode, text: res.body, contentType: String(res.headers['content-type']) };
}

after(killLeftoverGateways);

for (const { dialect, skip } of await testDialects()) {
  describe(`/metrics [${dialect}]`, { skip }, () => {
    let d: DeliveryGateway;
    let receiver: Receiver;
    let creds: MerchantCredentials;
    before(async () => {
      receiver = await Receiver.start();
      d = await startDeliveryGateway(dialect);
      creds = await addMerchant(d.gw);
    });
    after(async () => {
      await d?.close();
      await receiver?.close();
    });

    test(
      'payments, replays, finalisations, notification attempts, ' +
        'latency per route, process and event loop, version',
      async () => {
        receiver.on('/ok', answer(200));
        receiver.on('/down', answer(500));
        await completePayment(d.gw, creds, `${receiver.url}/ok`);
        await completePayment(d.gw, creds, `${receiver.url}/ok`, { amount: '15000' }); // declined by the sandbox rule
        await completePayment(d.gw, creds, `${receiver.url}/down`);
        const body = initiationBody(creds, { trackid: 'metrics-replay' });
        assert.equal((await post(d.gw, '/transaction/s2s', body)).status, 200);
        assert.equal((await post(d.gw, '/transaction/s2s', body)).headers['idempotent-replayed'], 'true');
        assert.equal((await post(d.gw, '/transaction/s2s', '{oops')).status, 400);

        await eventually(
          async () => {
            const { text } = await scrape(d.gw);
            return (
              sample(text, 'gateway_notification_attempts_total', { outcome: 'delivered', result: '2xx' }) === 2 &&
              (sample(text, 'gateway_notification_attempts_total', { outcome: 'retry', result: '5xx' }) ?? 0) >= 1
            );
          },
          10_000,
          50,
        );

        const { status, text, contentType } = await scrape(d.gw);
        assert.equal(status, 200);
        assert.match(contentType, /^text\/plain; version=0\.0\.4/);
        assert.equal(sample(text, 'gateway_build_info', { version: VERSION, mode: 'sandbox', store: dialect }), 1);
        assert.equal(sample(text, 'gateway_initiations_total', { result: 'created' }), 4);
        assert.equal(sample(text, 'gateway_initiations_total', { result: 'replayed' }), 1);
        assert.equal(sample(text, 'gateway_transactions_finalised_total', { status: 'SUCCESS', tag: '' }), 2);
        assert.equal(sample(text, 'gateway_transactions_finalised_total', { status: 'FAILED', tag: 'DECLINED' }), 1);
        assert.equal(
          sample(text, 'gateway_http_requests_total', { route: '/transaction/s2s', method: 'POST', status: '200' }),
          5,
        );
        assert.equal(
          sample(text, 'gateway_http_requests_total', { route: '/transaction/s2s', method: 'POST', status: '400' }),
          1,
        );
        assert.equal(
          sample(text, 'gateway_http_request_duration_seconds_count', { route: '/transaction/s2s', method: 'POST' }),
          6,
        );
        assert.equal(
          sample(text, 'gateway_http_request_duration_seconds_bucket', {
            route: '/transaction/s2s',
            method: 'POST',
            le: '+Inf',
          }),
          6,
        );
        assert.equal(sample(text, 'gateway_notification_attempt_duration_seconds_count', { result: '2xx' }), 2);
        assert.ok((sample(text, 'process_cpu_seconds_total') ?? 0) > 0, 'process CPU');
        assert.ok(sample(text, 'nodejs_eventloop_lag_p99_seconds') !== undefined, 'event-loop delay');
        assert.ok(sample(text, 'gateway_http_requests_in_flight') !== undefined);
      },
    );

    test(
      'every answer over real HTTP is counted once with its route, method and status, whichever path ' +
        'answers it (the JSON fast lane or Fastify), errors included',
      async () => {
        const gw = await startTestGateway(dialect);
        try {
          const shop = await addMerchant(gw);
          await gw.app.listen({ port: 0, host: '127.0.0.1' });
          const url = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
          const send = async (path: string, body: unknown, contentType = 'application/json') => {
            const response = await fetch(url + path, {
              method: 'POST',
              headers: { 'content-type': contentType },
              body: typeof body === 'string' ? body : JSON.stringify(body),
            });
            await response.arrayBuffer();
            return response.status;
          };
          const start = initiationBody(shop, { trackid: 'counted-1' });
          const answered = [
            await send('/transaction/s2s', start), // 200, the lane
            await send('/transaction/s2s', start), // 200 (a replay), the lane
            await send('/transaction/s2s', { ...start, bill_amount: '2000.00' }), // 409, the lane
            await send('/transaction/s2s', { ...start, password: 'wrong' }), // 401, the lane
            await send('/transaction/s2s', { ...start, bill_currencycode: 'XXX' }), // 400, the lane
            await send('/transaction/s2s', '{oops'), // 400 (not JSON), the lane
            await send('/transaction/s2s', JSON.stringify(start), 'text/plain'), // 415, Fastify
            await send('/transaction/status', { ...shop, trackid: 'counted-1' }), // 200, the lane
            await send('/transaction/status', { ...shop, trackid: 'nobody' }), // 404, the lane
            await send('/transaction/status', { ...shop, password: 'wrong', trackid: 'counted-1' }), // 401
            await send('/transaction/status', { merchantid: shop.merchantid, password: shop.password }), // 400
          ];
          assert.deepEqual(answered, [200, 200, 409, 401, 400, 400, 415, 200, 404, 401, 400]);

          const response = await fetch(`${url}/metrics`);
          const text = await response.text();
          const counted = (route: string, status: string) =>
            sample(text, 'gateway_http_requests_total', { route, method: 'POST', status });
          assert.equal(counted('/transaction/s2s', '200'), 2);
          assert.equal(counted('/transaction/s2s', '409'), 1);
          assert.equal(counted('/transaction/s2s', '401'), 1);
          assert.equal(counted('/transaction/s2s', '400'), 2);
          assert.equal(counted('/transaction/s2s', '415'), 1);
          assert.equal(counted('/transaction/status', '200'), 1);
          assert.equal(counted('/transaction/status', '404'), 1);
          assert.equal(counted('/transaction/status', '401'), 1);
          assert.equal(counted('/transaction/status', '400'), 1);
          const latency = (route: string, le: string) =>
            sample(text, 'gateway_http_request_duration_seconds_bucket', { route, method: 'POST', le });
          assert.equal(latency('/transaction/s2s', '+Inf'), 7);
          assert.equal(latency('/transaction/status', '+Inf'), 4);
          assert.equal(
            sample(text, 'gateway_http_request_duration_seconds_count', { route: '/transaction/s2s', method: 'POST' }),
            7,
          );
          assert.ok(
            (sample(text, 'gateway_http_request_duration_seconds_sum', { route: '/transaction/s2s', method: 'POST' }) ??
              0) > 0,
          );
        } finally {
          await gw.close();
        }
      },
    );

    test('a scrape reads nothing from the store: it answers with the store closed', async () => {
      const gw = await startTestGateway(dialect);
      try {
        await gw.services.store.close();
        const { status, text } = await scrape(gw);
        assert.equal(status, 200, text);
        assert.ok(sample(text, 'gateway_build_info', { version: VERSION }));
      } finally {
        await gw.app.close();
        await gw.testStore.cleanup();
      }
    });
  });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`gateway_attention_open [${dialect}]`, { skip }, () => {
    test(
      'the open needs-attention items: read from the store in the background, moved at once by this ' +
        "process's raises and resolves, never read by a scrape",
      async () => {
        const gw = await startTestGateway(dialect);
        try {
          const { store } = gw.services;
          assert.equal(sample((await scrape(gw)).text, 'gateway_attention_open'), undefined, 'not before it is kept');
          // The gauge as a scrape collects it, without the up-to-a-second reuse of a whole render.
          const gauge = async () =>
            (await gw.services.metrics.registry.getSingleMetric('gateway_attention_open')!.get()).values[0]?.value;
          const creds = await addMerchant(gw);
          const payments = [];
          for (let i = 0; i < 4; i++) payments.push((await startPayment(gw, creds)).transactionid);
          const first = await raiseAttention(store, payments[0]!);
          await raiseAttention(store, payments[1]!, { kind: 'amount_mismatch' });
          await startAttentionCount(gw.services, createLogger('error', gw.logs));
          assert.equal(sample((await scrape(gw)).text, 'gateway_attention_open'), 2);

          // Raised by another process: not seen until the background read (every 30 s) runs.
          const elsewhere = await raiseAttention(store, payments[2]!);
          assert.equal(await gauge(), 2, 'a scrape reads no store');
          await gw.services.openAttention.refresh();
          assert.equal(await gauge(), 3);

          // Raised by this process's live use cases, and resolved from its console: at once.
          const here = { ...elsewhere, id: 'att_here', transactionId: payments[3]! };
          await gw.services.openAttention.counting(store.attention).raise(here);
          assert.equal(await gauge(), 4);
          const attention = consoleDepsFrom(gw.services, gw.config).attention;
          await attention.resolve({ id: first.id, note: 'transferred back', by: 'cli' });
          assert.equal(await gauge(), 3);

          // Resolved by the CLI (another process): seen at the next background read.
          await store.attention.resolve(elsewhere.id, 'cli', 'done', Date.now());
          assert.equal(await gauge(), 3);
          await gw.services.openAttention.refresh();
          assert.equal(await gauge(), 2);

          // The store gone: a failed read keeps the last count, and the scrape still answers.
          await store.close();
          await assert.rejects(gw.services.openAttention.refresh());
          await eventually(async () => sample((await scrape(gw)).text, 'gateway_attention_open') === 2, 3000, 100);
          assert.equal((await scrape(gw)).status, 200);
        } finally {
          gw.services.openAttention.stop();
          await gw.app.close();
          await gw.testStore.cleanup();
        }
      },
    );
  });
}

const postgres = (await testDialects()).find((c) => c.dialect === 'postgres');
describe(
  '/metrics while the payment tables are locked [postgres]',
  { skip: postgres?.skip ?? 'TEST_DATABASE excludes postgres' },
  () => {
    test(
      'a scrape is answered while another session holds ' + 'an exclusive lock on transactions and outbox_events',
      async () => {
        const gw = await startTestGateway('postgres');
        const admin = new pg.Client({ connectionString: gw.testStore.databaseUrl });
        await admin.connect();
        try {
          await admin.query('begin');
          await admin.query('lock table transactions, outbox_events in access exclusive mode');
          const timeout = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5000).unref());
          const result = await Promise.race([scrape(gw), timeout]);
          assert.notEqual(result, 'blocked', 'the scrape waited on the payment tables');
          assert.equal((result as { status: number }).status, 200);
        } finally {
          await admin.query('rollback');
          await admin.end();
          await gw.close();
        }
      },
    );
  },
);

describe('METRICS_TOKEN', () => {
  let gw: TestGateway;
  const token = 'scrape-token-0123456789abcdef';
  before(async () => {
    gw = await startTestGateway('sqlite', { METRICS_TOKEN: token });
  });
  after(() => gw?.close());

  for (const [name, headers] of [
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer scrape-token-0123456789abcdeX' }],
    ['a Basic header', { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` }],
  ] as const) {
    test(`${name} → 401 INVALID_CREDENTIALS in the API error shape`, async () => {
      const res = await gw.app.inject({ method: 'GET', url: '/metrics', headers });
      assertErrorBody(
        { status: res.statusCode, headers: res.headers, body: res.json(), raw: res.body },
        { status: 401, code: '1000', tag: 'INVALID_CREDENTIALS' },
      );
    });
  }

  test('the right bearer token → 200', async () => {
    const { status, text } = await scrape(gw, { authorization: `Bearer ${token}` });
    assert.equal(status, 200);
    assert.ok(sample(text, 'gateway_build_info'));
  });

  test('a token shorter than 16 characters stops the start', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
  });
});

describe('METRICS_PORT (a real gateway process)', () => {
  test('/metrics moves to its own port; the API port answers 404 there', async (t) => {
    const database = await createTestDatabase('sqlite');
    t.after(() => database.drop());
    const env = {
      DATABASE_URL: database.databaseUrl,
      GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
      CREATE_DEMO_MERCHANT: 'false',
      METRICS_PORT: '0',
    };
    assert.equal((await runCliProcess(['migrate'], env)).code, 0);
    const gateway = await startGatewayProcess(env);
    try {
      const metricsUrl = /Metrics on (http:\/\/\S+)/.exec(gateway.stdout())?.[1];
      assert.ok(metricsUrl, gateway.stdout());
      const separate = await fetch(metricsUrl);
      assert.equal(separate.status, 200);
      assert.equal(sample(await separate.text(), 'gateway_build_info', { version: VERSION }), 1);
      const onApi = await fetch(`${gateway.url}/metrics`);
      assert.equal(onApi.status, 404);
      assert.equal(((await onApi.json()) as { error_code_tag: string }).error_code_tag, 'NOT_FOUND');
      const elsewhere = await fetch(metricsUrl.replace(/\/metrics$/, '/other'));
      assert.equal(elsewhere.status, 404);
    } finally {
      assert.equal(
        await gateway.stop(),
        0,
        `${JSON.stringify(await gateway.exited)} ${gateway.stderr()} ${gateway.stdout()}`,
      );
    }
  });
});
