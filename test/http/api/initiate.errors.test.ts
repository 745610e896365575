// Every row of the error table in docs/api.md "Errors" as a merchant sees it: code, tag, HTTP
// status, the full response shape whatever went wrong, and nothing internal in the body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { testDialects } from '../../support/dialects.ts';
import { createTestDatabase } from '../../support/test-store.ts';
import {
  addMerchant,
  initiationBody,
  LogCapture,
  post,
  startTestGateway,
  testConfig,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { assertErrorBody, assertNoInternals } from '../../support/error-body.ts';
import { createServices } from '../../../src/compose/services.ts';
import { buildApp } from '../../../src/http/build-app.ts';
import { httpDepsFrom } from '../../../src/compose/http-deps.ts';
import { createLogger } from '../../../src/logger.ts';
import { openStoreEngine } from '../../../src/store/engine.ts';
import { storeOver } from '../../../src/store/open-store.ts';

const countRows = async (gw: Pick<TestGateway, 'testStore'>) =>
  Number(
    (
      await gw.testStore.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A raw request (for headers post() always sets, such as the content type). */
async function raw(
  app: FastifyInstance,
  options: {
    url?: string;
    method?: 'POST' | 'GET' | 'PUT' | 'DELETE';
    headers?: Record<string, string>;
    payload?: string;
    remoteAddress?: string;
  },
) {
  const response = await app.inject({
    method: options.method ?? 'POST',
    url: options.url ?? '/transaction/s2s',
    headers: options.headers ?? {},
    ...(options.payload !== undefined && { payload: options.payload }),
    ...(options.remoteAddress && { remoteAddress: options.remoteAddress }),
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: response.json() as Record<string, any>,
    raw: response.body,
  };
}

/** A TCP relay in front of PostgreSQL that the test can cut, as a network failure would. */
async function startRelay(targetPort: number, listenPort = 0) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

for (const { dialect, skip } of await testDialects()) {
  describe(`initiation errors [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let serial = 0;
    const body = (overrides: Record<string, unknown> = {}, c: MerchantCredentials = creds) =>
      initiationBody(c, { trackid: `err-${++serial}`, ...overrides });

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
    });
    after(() => gw?.close());

    describe('1000 INVALID_CREDENTIALS (401)', () => {
      test('unknown merchant and wrong password get the identical answer, and nothing is written', async () => {
        const before = await countRows(gw);
        const unknown = await post(
          gw,
          '/transaction/s2s',
          body({ merchantid: 'NO_SUCH_MERCHANT', trackid: 'same-track' }),
        );
        const wrong = await post(
          gw,
          '/transaction/s2s',
          body({ password: `${creds.password}x`, trackid: 'same-track' }),
        );
        assertErrorBody(unknown, {
          status: 401,
          code: '1000',
          tag: 'INVALID_CREDENTIALS',
          trackid: 'same-track',
          merchantid: 'NO_SUCH_MERCHANT',
        });
        assertErrorBody(wrong, {
          status: 401,
          code: '1000',
          tag: 'INVALID_CREDENTIALS',
          trackid: 'same-track',
          merchantid: creds.merchantid,
        });
        // Only the echoed merchantid may differ; status, headers that matter and every other byte are the same.
        assert.equal(
          wrong.raw.replace(JSON.stringify(creds.merchantid), '"ID"'),
          unknown.raw.replace('"NO_SUCH_MERCHANT"', '"ID"'),
        );
        assert.equal(unknown.headers['retry-after'], wrong.headers['retry-after']);
        assert.equal(await countRows(gw), before);
      });

      test('the same on /transaction/status', async () => {
        const unknown = await post(gw, '/transaction/status', {
          merchantid: 'NO_SUCH_MERCHANT',
          password: 'x',
          trackid: 'a',
        });
        const wrong = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: 'x',
          trackid: 'a',
        });
        assertErrorBody(unknown, { status: 401, code: '1000', tag: 'INVALID_CREDENTIALS', shape: 'status' });
        assertErrorBody(wrong, { status: 401, code: '1000', tag: 'INVALID_CREDENTIALS', shape: 'status' });
        assert.equal(unknown.body.error_text, wrong.body.error_text);
      });
    });

    describe('1001 MERCHANT_DISABLED (403)', () => {
      test('a disabled merchant is refused on every operation; enabling it again restores access', async () => {
        const shop = await addMerchant(gw);
        const first = await post(gw, '/transaction/s2s', body({}, shop));
        assert.equal(first.status, 200);

        await gw.services.manageMerchants.setStatus(shop.merchantid, 'disabled');
        await gw.services.directory.refresh();
        const before = await countRows(gw);
        const refused = await post(gw, '/transaction/s2s', body({}, shop));
        assertErrorBody(refused, { status: 403, code: '1001', tag: 'MERCHANT_DISABLED', merchantid: shop.merchantid });
        assert.equal(await countRows(gw), before);
        const status = await post(gw, '/transaction/status', {
          merchantid: shop.merchantid,
          password: shop.password,
          transactionid: first.body.transactionid,
        });
        assertErrorBody(status, { status: 403, code: '1001', tag: 'MERCHANT_DISABLED', shape: 'status' });

        // A wrong password for a disabled merchant still says INVALID_CREDENTIALS: no account probing.
        const probing = await post(gw, '/transaction/s2s', body({ password: 'wrong' }, shop));
        assertErrorBody(probing, { status: 401, code: '1000', tag: 'INVALID_CREDENTIALS' });

        await gw.services.manageMerchants.setStatus(shop.merchantid, 'active');
        await gw.services.directory.refresh();
        assert.equal((await post(gw, '/transaction/s2s', body({}, shop))).status, 200);
      });
    });

    describe('1002 RATE_LIMITED (429)', () => {
      test(
        'too many failed logins from one client: refused even ' + 'with the right password, until the window passes',
        async () => {
          const limited = await startTestGateway(dialect, { FAILED_LOGIN_LIMIT: '3', FAILED_LOGIN_WINDOW: '1m' });
          try {
            const shop = await addMerchant(limited);
            for (let i = 0; i < 3; i++) {
              const res = await post(limited, '/transaction/s2s', body({ password: 'wrong' }, shop));
              assertErrorBody(res, { status: 401, code: '1000', tag: 'INVALID_CREDENTIALS' });
            }
            const locked = await post(limited, '/transaction/s2s', body({}, shop));
            assertErrorBody(locked, { status: 429, code: '1002', tag: 'RATE_LIMITED', merchantid: shop.merchantid });
            assert.ok(Number(locked.headers['retry-after']) > 0);
            assert.equal(await countRows(limited), 0);

            // Another client address is not affected.
            const elsewhere = await raw(limited.app, {
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify(body({}, shop)),
              remoteAddress: '127.0.0.2',
            });
            assert.equal(elsewhere.status, 200, elsewhere.raw);

            limited.clock.now += 60_000;
            assert.equal((await post(limited, '/transaction/s2s', body({}, shop))).status, 200);
          } finally {
            await limited.close();
          }
        },
      );

      test(
        'too many requests per merchant per second: refused over ' +
          'the limit, other merchants unaffected, fine next second',
        async () => {
          const limited = await startTestGateway(dialect, { RATE_LIMIT_PER_MERCHANT_PER_SECOND: '3' });
          try {
            const busy = await addMerchant(limited);
            const quiet = await addMerchant(limited);
            for (let i = 0; i < 3; i++)
              assert.equal((await post(limited, '/transaction/s2s', body({}, busy))).status, 200);
            const over = await post(limited, '/transaction/s2s', body({}, busy));
            assertErrorBody(over, {
              status: 429,
              code: '1002',
              tag: 'RATE_LIMITED',
              trackid: over.body.trackid,
              merchantid: busy.merchantid,
            });
            assert.equal(await countRows(limited), 3);
            const status = await post(limited, '/transaction/status', {
              merchantid: busy.merchantid,
              password: busy.password,
              trackid: 'x',
            });
            assertErrorBody(status, { status: 429, code: '1002', tag: 'RATE_LIMITED', shape: 'status' });

            assert.equal((await post(limited, '/transaction/s2s', body({}, quiet))).status, 200);
            limited.clock.now += 1000;
            assert.equal((await post(limited, '/transaction/s2s', body({}, busy))).status, 200);
          } finally {
            await limited.close();
          }
        },
      );
    });

    describe('2000 MALFORMED_REQUEST', () => {
      const json = { 'content-type': 'application/json' };

      test('a body that is not JSON → 400', async () => {
        for (const payload of ['{"merchantid":', 'hello', "{'merchantid':'x'}", '{"a":1}}', '']) {
          const res = await raw(gw.app, { headers: json, payload });
          assertErrorBody(res, {
            status: 400,
            code: '2000',
            tag: 'MALFORMED_REQUEST',
            trackid: null,
            merchantid: null,
          });
        }
      });

      test('JSON that is not an object (array, string, number, boolean, null) → 400', async () => {
        for (const payload of ['[]', JSON.stringify([body()]), '"THAI_DEBIT"', '42', '150.5', 'true', 'null']) {
          const res = await raw(gw.app, { headers: json, payload });
          assertErrorBody(res, {
            status: 400,
            code: '2000',
            tag: 'MALFORMED_REQUEST',
            trackid: null,
            merchantid: null,
          });
        }
      });

      test('a body over the limit (default 16 KiB) → 413; just under it is fine', async () => {
        const under = body({ productdesc: 'x'.repeat(15_000) });
        assert.ok(JSON.stringify(under).length < 16_384);
        assert.equal((await post(gw, '/transaction/s2s', under)).status, 200);
        const before = await countRows(gw);
        const over = await post(gw, '/transaction/s2s', body({ productdesc: 'x'.repeat(16_384) }));
        assertErrorBody(over, { status: 413, code: '2000', tag: 'MALFORMED_REQUEST', trackid: null, merchantid: null });
        assert.equal(await countRows(gw), before);
      });

      test('a configured BODY_LIMIT_BYTES is honoured', async () => {
        const small = await startTestGateway(dialect, { BODY_LIMIT_BYTES: '2048' });
        try {
          const shop = await addMerchant(small);
          assert.equal((await post(small, '/transaction/s2s', body({}, shop))).status, 200);
          const over = await post(small, '/transaction/s2s', body({ productdesc: 'x'.repeat(2048) }, shop));
          assertErrorBody(over, { status: 413, code: '2000', tag: 'MALFORMED_REQUEST' });
        } finally {
          await small.close();
        }
      });

      test('another content type, or none → 415', async () => {
        const payload = JSON.stringify(body());
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/xml',
          'application/jsonp',
          'application/json-patch+json',
        ]) {
          const res = await raw(gw.app, { headers: { 'content-type': type }, payload });
          assertErrorBody(res, { status: 415, code: '2000', tag: 'MALFORMED_REQUEST' });
        }
        const none = await raw(gw.app, { payload });
        assertErrorBody(none, { status: 415, code: '2000', tag: 'MALFORMED_REQUEST' });
        const form = await raw(gw.app, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `merchantid=${creds.merchantid}&password=${creds.password}`,
        });
        assertErrorBody(form, { status: 415, code: '2000', tag: 'MALFORMED_REQUEST' });
      });

      test('the charset parameter is optional', async () => {
        for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
          const res = await raw(gw.app, { headers: { 'content-type': type }, payload: JSON.stringify(body()) });
          assert.equal(res.status, 200, `${type}: ${res.raw}`);
        }
      });

      test('the status operation answers malformed requests in its own shape', async () => {
        const res = await raw(gw.app, {
          url: '/transaction/status',
          headers: { 'content-type': 'text/plain' },
          payload: 'x',
        });
        assertErrorBody(res, { status: 415, code: '2000', tag: 'MALFORMED_REQUEST', shape: 'status' });
        const notObject = await raw(gw.app, { url: '/transaction/status', headers: json, payload: '[1]' });
        assertErrorBody(notObject, { status: 400, code: '2000', tag: 'MALFORMED_REQUEST', shape: 'status' });
      });
    });

    describe('3001 NOT_FOUND (404)', () => {
      test('status of an unknown transaction, by transactionid and by trackid', async () => {
        const byId = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: '01900000-0000-7000-8000-000000000000',
        });
        assertErrorBody(byId, {
          status: 404,
          code: '3001',
          tag: 'NOT_FOUND',
          shape: 'status',
          merchantid: creds.merchantid,
        });
        const byTrack = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          trackid: 'never-sent',
        });
        assertErrorBody(byTrack, {
          status: 404,
          code: '3001',
          tag: 'NOT_FOUND',
          shape: 'status',
          trackid: 'never-sent',
        });
      });

      test("another merchant's transaction is not found — the same answer as an unknown one", async () => {
        const other = await addMerchant(gw);
        const theirs = await post(gw, '/transaction/s2s', body({ trackid: 'theirs-1' }, other));
        assert.equal(theirs.status, 200);
        const byId = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: theirs.body.transactionid,
        });
        assertErrorBody(byId, { status: 404, code: '3001', tag: 'NOT_FOUND', shape: 'status' });
        assert.equal(byId.body.bill_amount, null);
        const byTrack = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          trackid: 'theirs-1',
        });
        assertErrorBody(byTrack, { status: 404, code: '3001', tag: 'NOT_FOUND', shape: 'status' });
        const unknown = await post(gw, '/transaction/status', {
          merchantid: creds.merchantid,
          password: creds.password,
          trackid: 'theirs-2',
        });
        assert.equal(byTrack.body.error_text, unknown.body.error_text);
        const complete = await post(gw, '/sandbox/transaction/complete', {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: theirs.body.transactionid,
        });
        assertErrorBody(complete, { status: 404, code: '3001', tag: 'NOT_FOUND', shape: 'status' });
        // …and theirs is still open.
        const still = await post(gw, '/transaction/status', {
          merchantid: other.merchantid,
          password: other.password,
          transactionid: theirs.body.transactionid,
        });
        assert.equal(still.body.responsecode, '9');
      });

      test('unknown routes and methods answer JSON in the error shape, not a framework page', async () => {
        for (const [method, url] of [
          ['GET', '/nope'],
          ['POST', '/transaction/unknown'],
          ['GET', '/transaction/s2s'],
          ['PUT', '/transaction/status'],
          ['DELETE', '/transaction/s2s'],
        ] as const) {
          const res = await raw(gw.app, {
            method,
            url,
            headers: { 'content-type': 'application/json' },
            ...(method !== 'GET' && { payload: '{}' }),
          });
          assertErrorBody(res, { status: 404, code: '3001', tag: 'NOT_FOUND' });
          assert.doesNotMatch(res.raw, /Route .* not found|FST_/);
        }
      });
    });

    describe('3002 INVALID_STATE (409)', () => {
      test('completing a final transaction again is refused and changes nothing', async () => {
        const started = await post(gw, '/transaction/s2s', body({ bill_amount: '1000' }));
        const request = {
          merchantid: creds.merchantid,
          password: creds.password,
          transactionid: started.body.transactionid,
        };
        const first = await post(gw, '/sandbox/transaction/complete', request);
        assert.equal(first.status, 200);
        assert.equal(first.body.responsecode, '0');
        for (const outcome of [undefined, 'failed', 'cancelled']) {
          const again = await post(gw, '/sandbox/transaction/complete', { ...request, ...(outcome && { outcome }) });
          assertErrorBody(again, { status: 409, code: '3002', tag: 'INVALID_STATE', shape: 'status' });
        }
        const status = await post(gw, '/transaction/status', request);
        assert.equal(status.body.responsecode, '0');
        assert.equal(status.body.result, 'CAPTURED');
        assert.equal(status.body.completed_at, first.body.completed_at);
      });
    });

    describe('5000 INTERNAL_ERROR (500)', () => {
      test('an unexpected failure answers 500 without internals, and the operator log has the cause', async () => {
        const logs = new LogCapture();
        const logger = createLogger('info', logs);
        const services = createServices(gw.config, gw.testStore.store, gw.config.secretKey!, {
          now: () => gw.clock.now,
          logger,
        });
        services.initiate.execute = async () => {
          throw new Error('boom: postgres://admin:hunter2@db.internal/gateway at /srv/app/secret-module.ts:42');
        };
        services.transactions.findById = async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'hunter2')");
        };
        await services.directory.refresh();
        const app = await buildApp(httpDepsFrom(services), { logger });
        try {
          const before = await countRows(gw);
          const res = await post({ app }, '/transaction/s2s', body({ trackid: 'fail-1' }));
          assertErrorBody(res, {
            status: 500,
            code: '5000',
            tag: 'INTERNAL_ERROR',
            trackid: 'fail-1',
            merchantid: creds.merchantid,
          });
          assert.doesNotMatch(res.raw, /boom|hunter2|postgres:|secret-module|\/srv\//);
          assert.equal(await countRows(gw), before);

          const status = await post({ app }, '/transaction/status', {
            merchantid: creds.merchantid,
            password: creds.password,
            transactionid: 'anything',
          });
          assertErrorBody(status, { status: 500, code: '5000', tag: 'INTERNAL_ERROR', shape: 'status' });
          assert.doesNotMatch(status.raw, /hunter2|Cannot read/);

          // The operator can find the cause by the request id the merchant was given.
          const line = logs.lines
            .map((l) => JSON.parse(l) as Record<string, any>)
            .find((l) => l.err && l.reqId === res.headers['x-request-id']);
          assert.ok(line, 'the failure is logged with the request id');
          assert.match(line.err.message, /boom/);
        } finally {
          await app.close();
        }
      });
    });

    describe('5003 SERVICE_UNAVAILABLE (503)', () => {
      test('while draining, every request is refused with 503 and Retry-After, and nothing is written', async () => {
        const app = await buildApp(httpDepsFrom(gw.services), { logger: createLogger('silent'), draining: () => true });
        try {
          const before = await countRows(gw);
          const res = await post({ app }, '/transaction/s2s', body());
          assertErrorBody(res, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE' });
          assert.ok(Number(res.headers['retry-after']) > 0);
          const status = await post({ app }, '/transaction/status', {
            merchantid: creds.merchantid,
            password: creds.password,
            trackid: 'x',
          });
          assertErrorBody(status, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', shape: 'status' });
          assert.equal(await countRows(gw), before);
        } finally {
          await app.close();
        }
      });

      test('a store that has gone away gives 503 on initiation and status, and /readyz says so', async () => {
        // Its own gateway: closing the store is final.
        const doomed = await startTestGateway(dialect);
        try {
          const shop = await addMerchant(doomed);
          const ok = await post(doomed, '/transaction/s2s', body({}, shop));
          assert.equal(ok.status, 200);
          await doomed.services.store.close();
          const res = await post(doomed, '/transaction/s2s', body({ trackid: 'after-close' }, shop));
          assertErrorBody(res, {
            status: 503,
            code: '5003',
            tag: 'SERVICE_UNAVAILABLE',
            trackid: 'after-close',
            merchantid: shop.merchantid,
          });
          assert.ok(Number(res.headers['retry-after']) > 0);
          // Two at once: on SQLite one turn's lookups are read together (store/sqlite/lookup-batches.ts).
          const statuses = await Promise.all(
            [ok.body.transactionid, 'no-such-transaction'].map((transactionid) =>
              post(doomed, '/transaction/status', {
                merchantid: shop.merchantid,
                password: shop.password,
                transactionid,
              }),
            ),
          );
          for (const status of statuses)
            assertErrorBody(status, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', shape: 'status' });
          const ready = await doomed.app.inject({ method: 'GET', url: '/readyz' });
          assert.equal(ready.statusCode, 503);
          assertNoInternals(ready.body);
        } finally {
          await doomed.close();
        }
      });

      if (dialect === 'postgres') {
        /** A gateway whose PostgreSQL connections all pass through a relay the test can cut. */
        async function gatewayBehindRelay() {
          const database = await createTestDatabase('postgres');
          const target = Number(new URL(database.databaseUrl).port || 5432);
          let relay = await startRelay(target);
          const url = new URL(database.databaseUrl);
          url.hostname = '127.0.0.1';
          url.port = String(relay.port);
          const engine = openStoreEngine(url.toString());
          const store = storeOver(engine);
          const logs = new LogCapture();
          const logger = createLogger('info', logs);
          await store.migrate();
          const config = testConfig({ DATABASE_URL: url.toString() });
          const services = createServices(config, store, config.secretKey!, { logger });
          const shop = await services.manageMerchants.create({
            name: 'Relay Shop',
            payoutCurrency: 'THB',
            payoutAccount: '4111111111119012',
          });
          await services.directory.refresh();
          const app = await buildApp(httpDepsFrom(services), { logger });
          return {
            app,
            shop,
            logs,
            pool: engine.pgPool!,
            cut: () => relay.cut(),
            async restore() {
              relay = await startRelay(target, relay.port);
            },
            async close() {
              await app.close();
              await relay.cut();
              await store.close();
              await database.drop();
            },
          };
        }

        /** Lets the pool process the closed sockets (event-loop turns, not a timed sleep). */
        async function poolNoticed(pool: { totalCount: number }) {
          for (let turn = 0; pool.totalCount > 0 && turn < 10_000; turn++) await new Promise((r) => setImmediate(r));
          assert.equal(pool.totalCount, 0, 'the pool dropped its dead connections');
        }

        test(
          'PostgreSQL unreachable gives 503 on initiation and status, ' +
            '/readyz says so, and service resumes when it is back',
          async () => {
            const g = await gatewayBehindRelay();
            try {
              const ok = await post(g, '/transaction/s2s', body({}, g.shop));
              assert.equal(ok.status, 200, ok.raw);

              await g.cut();
              await poolNoticed(g.pool);
              const down = await post(g, '/transaction/s2s', body({ trackid: 'while-down' }, g.shop));
              assertErrorBody(down, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', trackid: 'while-down' });
              assert.ok(Number(down.headers['retry-after']) > 0);
              const status = await post(g, '/transaction/status', {
                merchantid: g.shop.merchantid,
                password: g.shop.password,
                transactionid: ok.body.transactionid,
              });
              assertErrorBody(status, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', shape: 'status' });
              assert.equal((await g.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
              assert.doesNotMatch(g.logs.text, /unexpected error/, 'an unreachable store is not logged as a bug');

              await g.restore();
              const back = await post(g, '/transaction/s2s', body({ trackid: 'while-down' }, g.shop));
              assert.equal(back.status, 200, back.raw);
            } finally {
              await g.close();
            }
          },
        );

        test('a connection cut while a request holds it gives 503, not a process crash', async () => {
          const g = await gatewayBehindRelay();
          try {
            await g.cut(); // no waiting: the pool still hands out the dead idle client
            const res = await post(g, '/transaction/s2s', body({}, g.shop));
            assertErrorBody(res, { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE' });
          } finally {
            await g.close();
          }
        });
      }
    });
  });
}
