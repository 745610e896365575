// The JSON fast lane (src/http/edge/json-fast-lane.ts) answers initiations and status queries on a
// real socket without Fastify; app.inject() always goes through Fastify. The same requests sent
// both ways must get the same answers: status, body bytes (replays and errors are deterministic),
// content type, and the headers clients act on. Requests the lane must leave to Fastify (wrong
// content type, empty or oversized body, query strings, draining) must still get Fastify's answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { buildApp } from '../../../src/http/build-app.ts';
import { httpDepsFrom } from '../../../src/compose/http-deps.ts';
import { createJsonFastLane } from '../../../src/http/edge/json-fast-lane.ts';
import { createLogger } from '../../../src/logger.ts';
import { GatewayMetrics } from '../../../src/app/gateway-metrics.ts';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COMPARED_HEADERS = ['content-type', 'idempotent-replayed', 'retry-after', 'connection'];

type Answer = { status: number; headers: Record<string, string | undefined>; body: string };

/**
 * A raw HTTP/1.1 request on a real socket, headers exactly as given (plus Host and Content-Length unless
 * overridden).
 */
function send(port: number, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function inject(
  gw: TestGateway,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await gw.app.inject({
    method: 'POST',
    url: path,
    payload: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
}

function assertSameAnswer(lane: Answer, fastify: Answer, what: string): void {
  assert.equal(lane.status, fastify.status, `${what}: status`);
  assert.equal(lane.body, fastify.body, `${what}: body`);
  for (const name of COMPARED_HEADERS) assert.equal(lane.headers[name], fastify.headers[name], `${what}: ${name}`);
  assert.match(String(lane.headers['x-request-id']), UUID, `${what}: x-request-id`);
  assert.notEqual(lane.headers['x-request-id'], fastify.headers['x-request-id']);
  assert.equal(Number(lane.headers['content-length']), Buffer.byteLength(lane.body), `${what}: content-length`);
}

for (const { dialect, skip } of await testDialects()) {
  describe(`JSON fast lane answers as Fastify does [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let port: number;
    let creds: MerchantCredentials;
    const body = (overrides: Record<string, unknown>) => JSON.stringify(initiationBody(creds, overrides));

    before(async () => {
      gw = await startTestGateway(dialect, { FAILED_LOGIN_LIMIT: '3' });
      creds = await addMerchant(gw);
      await gw.app.listen({ port: 0, host: '127.0.0.1' });
      port = (gw.app.server.address() as AddressInfo).port;
    });
    after(() => gw?.close());

    test(
      'a new initiation through the lane, replayed through Fastify (and ' +
        'the other way round): identical bytes, both flagged as replays',
      async () => {
        const a = body({ trackid: 'lane-first' });
        const created = await send(port, '/transaction/s2s', a);
        assert.equal(created.status, 200, created.body);
        assert.equal(created.headers['idempotent-replayed'], undefined);
        const replayed = await inject(gw, '/transaction/s2s', a);
        assert.equal(replayed.headers['idempotent-replayed'], 'true');
        assert.equal(replayed.body, created.body);

        const b = body({ trackid: 'fastify-first' });
        const viaFastify = await inject(gw, '/transaction/s2s', b);
        assert.equal(viaFastify.status, 200);
        const viaLane = await send(port, '/transaction/s2s', b);
        assert.equal(viaLane.headers['idempotent-replayed'], 'true');
        assert.equal(viaLane.body, viaFastify.body);
        assertSameAnswer(viaLane, await inject(gw, '/transaction/s2s', b), 'replay');
        assert.equal(JSON.parse(viaLane.body).trackid, 'fastify-first');
      },
    );

    test('every kind of refusal: same status, body and headers both ways', async () => {
      await inject(gw, '/transaction/s2s', body({ trackid: 'taken', bill_amount: '10.00' }));
      const cases: Array<[string, string, string]> = [
        ['invalid amount', '/transaction/s2s', body({ trackid: 'bad-amount', bill_amount: '99.999' })],
        [
          'missing field',
          '/transaction/s2s',
          JSON.stringify({ ...initiationBody(creds, { trackid: 'no-email' }), bill_email: undefined }),
        ],
        ['unsupported currency', '/transaction/s2s', body({ trackid: 'usd', bill_currencycode: 'USD' })],
        ['trackid reused for other content', '/transaction/s2s', body({ trackid: 'taken', bill_amount: '11.00' })],
        ['merchantid not a string', '/transaction/s2s', JSON.stringify({ ...initiationBody(creds), merchantid: 42 })],
        ['unknown merchant', '/transaction/s2s', JSON.stringify(initiationBody({ merchantid: 'NOPE', password: 'x' }))],
        ['malformed JSON', '/transaction/s2s', '{"merchantid":'],
        ['a JSON array', '/transaction/s2s', '[1,2]'],
        ['JSON null', '/transaction/s2s', 'null'],
        [
          'status: not found',
          '/transaction/status',
          JSON.stringify({ merchantid: creds.merchantid, password: creds.password, trackid: 'never' }),
        ],
        [
          'status: no reference',
          '/transaction/status',
          JSON.stringify({ merchantid: creds.merchantid, password: creds.password }),
        ],
        ['status: bad JSON', '/transaction/status', '{'],
      ];
      for (const [what, path, payload] of cases) {
        const lane = await send(port, path, payload);
        assert.ok(lane.status >= 400, `${what}: refused (${lane.status})`);
        assertSameAnswer(lane, await inject(gw, path, payload), what);
      }
    });

    test('status queries by transactionid and by trackid: same answer both ways', async () => {
      const created = JSON.parse((await send(port, '/transaction/s2s', body({ trackid: 'for-status' }))).body);
      for (const reference of [{ transactionid: created.transactionid }, { trackid: 'for-status' }]) {
        const payload = JSON.stringify({ merchantid: creds.merchantid, password: creds.password, ...reference });
        const lane = await send(port, '/transaction/status', payload);
        assert.equal(lane.status, 200);
        assertSameAnswer(
          lane,
          await inject(gw, '/transaction/status', payload),
          `status by ${Object.keys(reference)[0]}`,
        );
      }
    });

    test("requests the lane leaves to Fastify still get Fastify's answers", async () => {
      const valid = body({ trackid: 'declined-cases' });
      const cases: Array<[string, string, string, Record<string, string>, number]> = [
        ['text/plain', '/transaction/s2s', valid, { 'content-type': 'text/plain' }, 415],
        ['empty body', '/transaction/s2s', '', {}, 400],
        [
          'over the body limit',
          '/transaction/s2s',
          JSON.stringify({ ...initiationBody(creds), productdesc: 'x'.repeat(gw.config.bodyLimitBytes) }),
          {},
          413,
        ],
        [
          'a charset other than UTF-8',
          '/transaction/status',
          JSON.stringify({ merchantid: creds.merchantid, password: creds.password, trackid: 'never' }),
          { 'content-type': 'application/json; charset=iso-8859-1' },
          404,
        ],
        [
          'a query string',
          '/transaction/status?x=1',
          JSON.stringify({ merchantid: creds.merchantid, password: creds.password, trackid: 'never' }),
          {},
          404,
        ],
      ];
      for (const [what, path, payload, headers, status] of cases) {
        const lane = await send(port, path, payload, headers);
        assert.equal(lane.status, status, `${what}: ${lane.body}`);
        assertSameAnswer(lane, await inject(gw, path, payload, headers), what);
      }
      // Sent last, so the test above need not care: the valid body after the refusals still works.
      assert.equal((await send(port, '/transaction/s2s', valid)).status, 200);
    });

    test('failed logins through the lane and through Fastify count against the same client', async () => {
      const wrong = body({ trackid: 'pw', password: `${creds.password}x` });
      const other = await addMerchant(gw);
      const wrongOther = JSON.stringify(initiationBody(other, { trackid: 'pw2', password: 'nope' }));
      assert.equal((await send(port, '/transaction/s2s', wrongOther)).status, 401);
      assert.equal((await inject(gw, '/transaction/s2s', wrongOther)).status, 401);
      assert.equal((await send(port, '/transaction/s2s', wrongOther)).status, 401);
      // The fourth failure for (127.0.0.1, merchant) is over FAILED_LOGIN_LIMIT=3, whichever path counted the first
      // three.
      const limited = await send(port, '/transaction/s2s', wrongOther);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assertSameAnswer(limited, await inject(gw, '/transaction/s2s', wrongOther), 'rate limited');
      // Another merchant behind the same address is not locked out.
      assert.equal((await send(port, '/transaction/s2s', wrong)).status, 401);
    });

    test('each lane answer is logged once, under the id its x-request-id names', async () => {
      const answer = await send(
        port,
        '/transaction/status',
        JSON.stringify({ merchantid: creds.merchantid, password: creds.password, trackid: 'lane-first' }),
      );
      const id = answer.headers['x-request-id'];
      const lines = gw.logs.lines.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.reqId === id);
      assert.equal(lines.length, 1, JSON.stringify(lines));
      assert.equal(lines[0]!.msg, 'request completed');
      assert.deepEqual(
        [lines[0]!.req.method, lines[0]!.req.path, lines[0]!.req.ip, lines[0]!.res.statusCode],
        ['POST', '/transaction/status', '127.0.0.1', 200],
      );
    });
  });
}

describe('JSON fast lane: what it declines', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('sqlite');
  });
  after(() => gw?.close());

  test('while draining, the lane declines and Fastify answers 503 with Connection: close', async () => {
    const app = await buildApp(httpDepsFrom(gw.services), { logger: createLogger('silent'), draining: () => true });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      const creds = await addMerchant(gw);
      const answer = await send(port, '/transaction/s2s', JSON.stringify(initiationBody(creds)));
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.connection, 'close');
      assert.equal(JSON.parse(answer.body).error_code_tag, 'SERVICE_UNAVAILABLE');
    } finally {
      await app.close();
    }
  });

  test('without a Host header, with another method, path or body it cannot take, the lane takes nothing', () => {
    const inFlight = { current: 0, shed: 0, held: 0 };
    const lane = createJsonFastLane({
      operations: [{ path: '/op', errorShape: 'status', handle: async () => ({ body: {} }) }],
      bodyLimit: 100,
      shedding: { inFlight, maxInFlight: 2, shed: () => 'x', hold: (answer) => answer() },
      draining: () => false,
      clientAddress: () => '127.0.0.1',
      logger: createLogger('silent'),
      answers: new GatewayMetrics({ mode: 'sandbox', store: 'sqlite' }),
      isStoreUnavailable: () => false,
      onStoreUnavailable: () => {},
    });
    const request = (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      ({
        method: 'POST',
        url: '/op',
        headers: { host: 'x', 'content-type': 'application/json', 'content-length': '2', ...headers },
        ...over,
      }) as unknown as IncomingMessage;
    const response = {} as ServerResponse;
    assert.equal(lane(request({}, { host: '' }), response), false, 'no Host');
    assert.equal(lane(request({ method: 'PUT' }), response), false, 'PUT');
    assert.equal(lane(request({ url: '/op/' }), response), false, 'trailing slash');
    assert.equal(lane(request({}, { 'content-length': '101' }), response), false, 'over the limit');
    assert.equal(lane(request({}, { 'content-length': '0' }), response), false, 'empty');
    assert.equal(lane(request({}, { 'content-encoding': 'gzip' }), response), false, 'compressed');
    assert.equal(inFlight.current, 0, 'nothing was counted');
  });
});

describe('JSON fast lane behind a proxy (TRUST_PROXY=127.0.0.1, FAILED_LOGIN_LIMIT=2)', () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite', { TRUST_PROXY: '127.0.0.1', FAILED_LOGIN_LIMIT: '2' });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as AddressInfo).port;
  });
  after(() => gw?.close());

  test(
    'the client is the X-Forwarded-For address on both ' + 'paths: its failures lock it out, not the next client',
    async () => {
      const creds = await addMerchant(gw);
      const wrong = JSON.stringify(initiationBody(creds, { trackid: 'xff', password: 'wrong' }));
      const from = (address: string) => ({ 'x-forwarded-for': address });
      assert.equal((await send(port, '/transaction/s2s', wrong, from('203.0.113.9'))).status, 401);
      assert.equal((await inject(gw, '/transaction/s2s', wrong, from('203.0.113.9'))).status, 401);
      const limited = await send(port, '/transaction/s2s', wrong, from('203.0.113.9'));
      assert.equal(limited.status, 429);
      assertSameAnswer(limited, await inject(gw, '/transaction/s2s', wrong, from('203.0.113.9')), 'locked out client');
      assert.equal(
        (await send(port, '/transaction/s2s', wrong, from('203.0.113.10'))).status,
        401,
        'another client behind the same proxy',
      );
    },
  );
});

test(
  'an answer the lane cannot serialise is a 500 in the ' + "operation's shape, and the process keeps serving",
  async () => {
    const inFlight = { current: 0, shed: 0, held: 0 };
    const lane = createJsonFastLane({
      operations: [{ path: '/op', errorShape: 'status', handle: async () => ({ body: { amount: 1n } }) }],
      bodyLimit: 100,
      shedding: { inFlight, maxInFlight: 10, shed: () => 'x', hold: (answer) => answer() },
      draining: () => false,
      clientAddress: (request) => request.socket.remoteAddress,
      logger: createLogger('silent'),
      answers: new GatewayMetrics({ mode: 'sandbox', store: 'sqlite' }),
      isStoreUnavailable: () => false,
      onStoreUnavailable: () => {},
    });
    const server = createServer((request, response) => {
      if (!lane(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      for (let i = 0; i < 2; i++) {
        const answer = await send(port, '/op', '{"trackid":"t-1"}');
        assert.equal(answer.status, 500);
        assert.equal(JSON.parse(answer.body).error_code_tag, 'INTERNAL_ERROR');
        assert.equal(JSON.parse(answer.body).trackid, 't-1');
      }
      assert.equal(inFlight.current, 0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
);

describe('JSON fast lane: over the in-flight limit (MAX_IN_FLIGHT=1)', () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite', { MAX_IN_FLIGHT: '1' });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as AddressInfo).port;
  });
  after(() => gw?.close());

  test(
    'it sheds with the same 503 as Fastify, counted in the ' + 'same metrics, and serves again once the slot is free',
    async () => {
      const creds = await addMerchant(gw);
      const payload = JSON.stringify(initiationBody(creds, { trackid: 'shed' }));
      // A request whose body has not all arrived holds the one slot.
      const holder = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => holder.once('connect', resolve));
      holder.write(
        `POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(payload)}\r\n\r\n{`,
      );
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const lane = await send(port, '/transaction/s2s', payload);
        assert.equal(lane.status, 503);
        assertSameAnswer(lane, await inject(gw, '/transaction/s2s', payload), 'shed');
        assert.equal(JSON.parse(lane.body).error_text, 'The gateway is at capacity; retry shortly.');
        const metrics = await gw.app.inject({ method: 'GET', url: '/metrics' });
        assert.match(metrics.body, /gateway_http_requests_shed_total 2\b/);
      } finally {
        holder.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await send(port, '/transaction/s2s', payload)).status, 200);
    },
  );
});
