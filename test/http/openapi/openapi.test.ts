// /openapi.json: a valid OpenAPI 3.1 document (checked by a real validator) naming every
// operation, whose response schemas the real answers of a running gateway conform to — success
// and error shapes — with the webhook payload matching a notification really received, and
// examples that are recorded real answers (UPDATE_OPENAPI_EXAMPLES=1 re-records them).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EXAMPLES_FILE, registerOpenApi, type RecordedExamples } from '../../../src/http/openapi/openapi.ts';
import { DOCS_CSP } from '../../../src/http/openapi/docs-page.ts';
import { startTestGateway, testConfig } from '../../support/test-gateway.ts';
import { EXPECTED_OPERATIONS, EXPECTED_WEBHOOKS } from '../../support/api-operations.ts';
import { initiation, startRunningGateway, type RunningGateway } from '../../support/running-gateway.ts';
import { Receiver } from '../../support/delivery.ts';

type Json = Record<string, any>;
type Answer = { status: number; body: Json };

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** Fields whose values differ on every run; the examples keep real values, compared by kind only. */
const VOLATILE = new Set([
  'transactionid',
  'token',
  'redirectUrl',
  'created_at',
  'completed_at',
  'event_id',
  'refundid',
]);
const normalise = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(
        Object.entries(value).map(
          ([k, v]) => [k, VOLATILE.has(k) && v !== null ? `<${typeof v}>` : normalise(v)] as const,
        ),
      )
    : value;

describe('OpenAPI document', () => {
  let gw: RunningGateway;
  let receiver: Receiver;
  let doc: Json;
  const answers: { operationId: string; answer: Answer }[] = [];

  async function call(operationId: string, path: string, body: unknown, init: RequestInit = {}): Promise<Answer> {
    const response = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
    const answer = { status: response.status, body: (await response.json()) as Json };
    answers.push({ operationId, answer });
    return answer;
  }

  function operation(operationId: string): Json {
    for (const item of Object.values(doc.paths) as Json[])
      for (const op of Object.values(item) as Json[]) if (op.operationId === operationId) return op;
    throw new Error(`no operation ${operationId}`);
  }

  function documentedSchema(operationId: string, status: number): Json {
    const responses = operation(operationId).responses;
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
    assert.ok(response, `${operationId} documents no response for HTTP ${status}`);
    return response.content['application/json'].schema;
  }

  function assertConforms(operationId: string, { status, body }: Answer): void {
    const schema = documentedSchema(operationId, status);
    const validate = ajv.compile(schema);
    assert.ok(
      validate(body),
      `${operationId} HTTP ${status}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body)}`,
    );
    assert.deepEqual(
      Object.keys(body).sort(),
      documentedFields(schema, body),
      `${operationId} answers exactly the documented fields`,
    );
  }

  /** The schema's fields this body must carry: every required one, and the optional ones it has. */
  function documentedFields(schema: Json, body: Json): string[] {
    const required = new Set<string>(schema.required ?? []);
    return Object.keys(schema.properties)
      .filter((k) => required.has(k) || k in body)
      .sort();
  }

  before(async () => {
    receiver = await Receiver.start();
    gw = await startRunningGateway({ merchantId: 'M_EXAMPLE', env: { PUBLIC_BASE_URL: 'https://pay.example.com' } });
    const response = await fetch(`${gw.url}/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    doc = (await response.json()) as Json;
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
  });

  test('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
  });

  test('a broken document is refused by the same validator (the check can fail)', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/transaction/s2s'].post.responses;
    broken.info = { title: 1 };
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  test('names every operation (and only those) and the notification webhooks', () => {
    const found = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ method, path, operationId: (op as Json).operationId })),
    );
    const key = (o: { method: string; path: string; operationId: string }) =>
      `${o.method.toUpperCase()} ${o.path} ${o.operationId}`;
    assert.deepEqual(found.map(key).sort(), EXPECTED_OPERATIONS.map(key).sort());
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EXPECTED_WEBHOOKS].sort());
    assert.deepEqual(doc.servers, [{ url: 'https://pay.example.com' }]);
  });

  test('real answers of the running gateway conform to the documented schemas, success and error', async () => {
    const { creds } = gw;
    const serverUrl = receiver.on('/hook', (res) => res.writeHead(200).end('ok'));
    const auth = { merchantid: creds.merchantid, password: creds.password };
    const accepted = await call('initiatePayment', '/transaction/s2s', initiation(creds, serverUrl, 'order-1001'));
    assert.equal(accepted.status, 200);
    assert.equal(
      (await call('initiatePayment', '/transaction/s2s', initiation(creds, serverUrl, 'order-1001'))).status,
      200,
    ); // replay
    assert.equal(
      (
        await call('initiatePayment', '/transaction/s2s', {
          ...initiation(creds, serverUrl, 'order-1002'),
          bill_amount: '99.999',
        })
      ).status,
      400,
    );
    assert.equal((await call('initiatePayment', '/transaction/s2s', '{"merchantid":')).status, 400);
    assert.equal(
      (await call('initiatePayment', '/transaction/s2s', '{}', { headers: { 'content-type': 'text/plain' } })).status,
      415,
    );
    assert.equal(
      (
        await call('initiatePayment', '/transaction/s2s', {
          ...initiation(creds, serverUrl, 'order-1003'),
          password: 'wrong',
        })
      ).status,
      401,
    );
    assert.equal(
      (
        await call('getTransactionStatus', '/transaction/status', {
          ...auth,
          transactionid: accepted.body.transactionid,
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await call('getTransactionStatus', '/transaction/status', {
          ...auth,
          transactionid: '01900000-0000-7000-8000-000000000000',
        })
      ).status,
      404,
    );
    assert.equal((await call('getTransactionStatus', '/transaction/status', auth)).status, 400);
    assert.equal(
      (
        await call('completeSandboxPayment', '/sandbox/transaction/complete', {
          ...auth,
          transactionid: accepted.body.transactionid,
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await call('completeSandboxPayment', '/sandbox/transaction/complete', {
          ...auth,
          transactionid: accepted.body.transactionid,
        })
      ).status,
      409,
    );
    assert.equal((await call('queryPayoutBalance', '/GatewayInstaPay/QueryPayoutBalance', auth)).status, 200);
    assert.equal(
      (await call('queryPayoutBalance', '/GatewayInstaPay/QueryPayoutBalance', { ...auth, password: 'wrong' })).status,
      401,
    );
    const refund = {
      ...auth,
      transactionid: accepted.body.transactionid,
      bill_amount: '150.00',
      bill_currencycode: 'THB',
      reason: 'Returned item',
    };
    assert.equal((await call('refundPayment', '/transaction/refund', refund)).status, 200);
    assert.equal(
      (await call('refundPayment', '/transaction/refund', { ...refund, bill_amount: '900.00' })).status,
      409,
    ); // more than the 850.00 left
    assert.equal(
      (
        await call('refundPayment', '/transaction/refund', {
          ...refund,
          transactionid: '01900000-0000-7000-8000-000000000000',
        })
      ).status,
      404,
    );
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${gw.url}${path}`);
      answers.push({
        operationId: path === '/healthz' ? 'health' : 'ready',
        answer: { status: response.status, body: (await response.json()) as Json },
      });
    }
    for (const { operationId, answer } of answers) assertConforms(operationId, answer);
    assert.ok(answers.some((a) => a.answer.status >= 400) && answers.some((a) => a.answer.status === 200));
  });

  test('every error answered is in the documented error table with its code and HTTP status', () => {
    const rows = new Set(
      [...String(doc.info.description).matchAll(/^\| ([\d /]+) \| `(\d+)` \| `([A-Z_]+)` \|$/gm)].flatMap((m) =>
        m[1]!.split(' / ').map((status) => `${status} ${m[2]} ${m[3]}`),
      ),
    );
    assert.ok(rows.size >= 15, 'the table has a row per error tag');
    const errors = answers.filter((a) => a.answer.body.type === 'error');
    assert.ok(errors.length >= 7);
    for (const { answer } of errors)
      assert.ok(
        rows.has(`${answer.status} ${answer.body.responsecode} ${answer.body.error_code_tag}`),
        JSON.stringify(answer),
      );
    const tags = doc.components.schemas.ErrorCodeTag.enum as string[];
    for (const { answer } of errors) assert.ok(tags.includes(answer.body.error_code_tag));
  });

  /**
   * Waits for the notification on /hook whose event_type is `eventType` (payment results have
   * none), checks it against the documented webhook (headers, schema by $ref, exactly its fields)
   * and returns its body.
   */
  async function receivedNotificationConforms(
    webhookName: string,
    schemaName: string,
    eventType: string | undefined,
  ): Promise<Json> {
    const matches = (r: { path: string; body: Buffer }) =>
      r.path === '/hook' && (JSON.parse(r.body.toString('utf8')) as Json).event_type === eventType;
    await receiver.waitFor(() => receiver.requests.some(matches), `the ${webhookName} notification`);
    const received = receiver.requests.find(matches)!;
    const webhook = doc.webhooks[webhookName].post;
    for (const parameter of webhook.parameters) assert.ok(received.headers[parameter.name], `header ${parameter.name}`);
    assert.equal(webhook.requestBody.content['application/json'].schema.$ref, `#/components/schemas/${schemaName}`);
    const schema = doc.components.schemas[schemaName];
    const validate = ajv.compile(schema);
    const body = JSON.parse(received.body.toString('utf8')) as Json;
    assert.ok(validate(body), JSON.stringify(validate.errors));
    assert.deepEqual(Object.keys(body).sort(), documentedFields(schema, body));
    return body;
  }

  test('a notification really received matches the documented webhook payload and headers', async () => {
    await receivedNotificationConforms('paymentResult', 'PaymentNotification', undefined);
  });

  test('a refund notification really received matches the documented refund webhook payload and headers', async () => {
    const body = await receivedNotificationConforms('refund', 'RefundNotification', 'refund');
    assert.equal(body.bill_amount, '150.00');
  });

  test('examples are real answers of this run (re-record with UPDATE_OPENAPI_EXAMPLES=1) and conform', () => {
    const pick = (operationId: string, status: number, summary: string) => {
      const found = answers.find((a) => a.operationId === operationId && a.answer.status === status);
      assert.ok(found, `${operationId} ${status}`);
      return { summary, status, value: found.answer.body };
    };
    const fresh: RecordedExamples = {
      initiatePayment: {
        accepted: pick('initiatePayment', 200, 'Payment started'),
        invalidAmount: pick('initiatePayment', 400, 'A field breaks its rule'),
      },
      getTransactionStatus: {
        processing: pick('getTransactionStatus', 200, 'Waiting for the customer'),
        notFound: pick('getTransactionStatus', 404, 'Unknown transaction'),
      },
      completeSandboxPayment: {
        captured: pick('completeSandboxPayment', 200, 'Paid (sandbox)'),
        alreadyFinal: pick('completeSandboxPayment', 409, 'Already final'),
      },
      queryPayoutBalance: {
        balance: pick('queryPayoutBalance', 200, 'Balance after one payment'),
        invalidCredentials: pick('queryPayoutBalance', 401, 'Wrong password'),
      },
      refundPayment: {
        refunded: pick('refundPayment', 200, 'Part of a payment refunded'),
        exceeds: pick('refundPayment', 409, 'More than is still refundable'),
      },
      health: { ok: pick('health', 200, 'Running') },
      ready: { ready: pick('ready', 200, 'Store reachable') },
    };
    if (process.env.UPDATE_OPENAPI_EXAMPLES === '1')
      writeFileSync(EXAMPLES_FILE, `${JSON.stringify(fresh, null, 2)}\n`);
    const committed = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as RecordedExamples;
    assert.deepEqual(
      normalise(committed),
      normalise(fresh),
      'examples.json is out of date: run this test with UPDATE_OPENAPI_EXAMPLES=1',
    );
    for (const [operationId, named] of Object.entries(committed)) {
      for (const [name, example] of Object.entries(named)) {
        assertConforms(operationId, { status: example.status, body: example.value as Json });
        const response = operation(operationId).responses;
        const shown = (response[String(example.status)] ?? response[`${String(example.status)[0]}XX`]).content[
          'application/json'
        ].examples[name];
        assert.deepEqual(shown.value, example.value, `${operationId}/${name} is in the document`);
      }
    }
  });

  test('/docs: a page with no inline code under a strict CSP; only the listed assets are served', async () => {
    const page = await fetch(`${gw.url}/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), DOCS_CSP);
    assert.doesNotMatch(DOCS_CSP, /unsafe|\*|https?:/, 'no unsafe sources, wildcards or other hosts');
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script is a file');
    assert.doesNotMatch(html, /<style|style=/, 'no inline styles');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    assert.ok(assets.length >= 4);
    for (const asset of assets) {
      assert.ok(asset.startsWith('/docs/assets/'), `served here: ${asset}`);
      const response = await fetch(`${gw.url}${asset}`);
      assert.equal(response.status, 200, asset);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      await response.arrayBuffer();
    }
    for (const bad of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/index.html'])
      assert.equal((await fetch(`${gw.url}${bad}`)).status, 404, bad);
  });

  test('the balance path follows SERVICE_NAME', async () => {
    const local = await startTestGateway('sqlite', { SERVICE_NAME: 'Acme' });
    try {
      const paths = Object.keys((await local.app.inject({ url: '/openapi.json' })).json().paths);
      assert.ok(paths.includes('/AcmeInstaPay/QueryPayoutBalance'), paths.join(', '));
      assert.ok(!paths.includes('/GatewayInstaPay/QueryPayoutBalance'));
    } finally {
      await local.close();
    }
  });

  test('a route registered with a schema appears by itself; routes without one stay out', async () => {
    const app = Fastify();
    await registerOpenApi(app, testConfig());
    app.post(
      '/transaction/new-thing',
      { schema: { operationId: 'newThing', response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
      async () => ({ ok: true }),
    );
    app.post(
      '/transaction/refund',
      { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
      async () => ({ ok: true }),
    );
    app.get('/internal', async () => 'x');
    await app.ready();
    const paths = (await app.inject({ url: '/openapi.json' })).json().paths;
    assert.equal(paths['/transaction/new-thing'].post.operationId, 'newThing');
    assert.equal(
      paths['/transaction/refund'].post.operationId,
      'postTransactionRefund',
      'named from method and path when the route gives no operationId',
    );
    assert.equal(paths['/internal'], undefined);
    assert.equal(paths['/openapi.json'], undefined);
    await app.close();
  });
});
