import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import {
  OutboundPolicyError,
  assertLiteralHostAllowed,
  createGuardedLookup,
  guardedRequestOptions,
} from '../../src/delivery/guarded-lookup.ts';
import type { Resolver } from '../../src/delivery/guarded-lookup.ts';
import type { OutboundPolicy } from '../../src/domain/outbound-policy.ts';

const sandbox: OutboundPolicy = { mode: 'sandbox', allowHttp: false, allowList: [] };
const live: OutboundPolicy = { mode: 'live', allowHttp: true, allowList: [] };

let server: http.Server;
let port = 0;
let hits: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.headers.host ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(options: http.RequestOptions): Promise<{ status: number } | { error: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    const req = http.request({ method: 'POST', timeout: 2000, agent: false, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    req.end('{}');
  });
}

// A resolver that answers like an attacker-controlled DNS zone would.
function fakeDns(answers: string[]): Resolver {
  return (_host, _opts, cb) =>
    cb(
      null,
      answers.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
}

test('sandbox: http://localhost:<port> is delivered', async () => {
  hits = [];
  const result = await send(guardedRequestOptions(`http://localhost:${port}/hook`, sandbox));
  assert.deepEqual(result, { status: 200 });
  assert.equal(hits.length, 1);
});

test('live: http://localhost:<port> is refused up front and again at connect time', async () => {
  hits = [];
  assert.throws(() => guardedRequestOptions(`http://localhost:${port}/hook`, live), OutboundPolicyError);
  // Bypass the static check to prove the lookup alone refuses loopback.
  const result = await send({ host: 'localhost', port, path: '/hook', lookup: createGuardedLookup(live) });
  assert.ok('error' in result);
  assert.equal(result.error.code, 'EOUTBOUNDPOLICY');
  assert.equal(hits.length, 0);
});

test('live: literal 127.0.0.1 is refused', async () => {
  const url = `http://127.0.0.1:${port}/hook`;
  assert.throws(
    () => guardedRequestOptions(url, live),
    (err: unknown) => {
      assert.ok(err instanceof OutboundPolicyError);
      assert.equal(err.code, 'EOUTBOUNDPOLICY');
      return true;
    },
  );
  assert.throws(() => assertLiteralHostAllowed(url, live), OutboundPolicyError);
  assert.throws(() => assertLiteralHostAllowed(`http://[::ffff:127.0.0.1]:${port}/`, live), OutboundPolicyError);
  assert.doesNotThrow(() => assertLiteralHostAllowed(url, sandbox));
});

test('why the literal check exists: Node skips lookup for IP literals', async () => {
  hits = [];
  let called = false;
  const spy = createGuardedLookup(live, (host, opts, cb) => {
    called = true;
    cb(null, []);
  });
  const result = await send({ host: '127.0.0.1', port, path: '/', lookup: spy });
  assert.deepEqual(result, { status: 200 }); // the lookup never ran, so nothing stopped it
  assert.equal(called, false);
});

test('DNS rebinding: a name answering 127.0.0.1 at connect time is judged by that address', async () => {
  hits = [];
  const rebinding = fakeDns(['127.0.0.1']);
  // The URL passes the static check: a public-looking name.
  const liveOptions = guardedRequestOptions(`http://rebind.test:${port}/hook`, live, rebinding);
  const refused = await send(liveOptions);
  assert.ok('error' in refused);
  assert.equal(refused.error.code, 'EOUTBOUNDPOLICY');
  assert.match(refused.error.message, /127\.0\.0\.1 is loopback/);
  assert.equal(hits.length, 0);

  const allowed = await send(guardedRequestOptions(`http://rebind.test:${port}/hook`, sandbox, rebinding));
  assert.deepEqual(allowed, { status: 200 });
  assert.deepEqual(hits, [`rebind.test:${port}`]);
});

test('live allow-list entry lets a loopback target through', async () => {
  hits = [];
  const policy: OutboundPolicy = { mode: 'live', allowHttp: true, allowList: ['127.0.0.1'] };
  assert.deepEqual(await send(guardedRequestOptions(`http://127.0.0.1:${port}/hook`, policy)), { status: 200 });
  assert.equal(hits.length, 1);
});

test('sandbox deny entry refuses loopback even for a name', async () => {
  const policy: OutboundPolicy = { mode: 'sandbox', allowHttp: false, allowList: ['!127.0.0.0/8', '!::1'] };
  const result = await send(guardedRequestOptions(`http://localhost:${port}/`, policy));
  assert.ok('error' in result);
  assert.equal(result.error.code, 'EOUTBOUNDPOLICY');
});

test('mixed answers are filtered down to the allowed addresses (no connection made)', async () => {
  const lookup = createGuardedLookup(live, fakeDns(['10.0.0.1', '8.8.8.8', '::1', '2606:4700:4700::1111']));
  const all = await new Promise((resolve, reject) =>
    lookup('mixed.test', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
  assert.deepEqual(all, [
    { address: '8.8.8.8', family: 4 },
    { address: '2606:4700:4700::1111', family: 6 },
  ]);
  const one = await new Promise((resolve, reject) =>
    lookup('mixed.test', {}, (err, address, family) => (err ? reject(err) : resolve([address, family]))),
  );
  assert.deepEqual(one, ['8.8.8.8', 4]);
});

test('resolver errors and empty answers pass through as DNS errors', async () => {
  const failing: Resolver = (_h, _o, cb) => {
    const err: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND nope.test');
    err.code = 'ENOTFOUND';
    cb(err, []);
  };
  for (const resolver of [failing, fakeDns([])]) {
    const code = await new Promise((resolve) =>
      createGuardedLookup(live, resolver)('nope.test', { all: true }, (err) => resolve(err?.code)),
    );
    assert.equal(code, 'ENOTFOUND');
  }
});

test('reserved names (.example, .test, .invalid) fail as not found without asking DNS', async () => {
  for (const host of ['merchant.example', 'shop.test', 'x.invalid', 'MERCHANT.EXAMPLE.']) {
    const result = await send(guardedRequestOptions(`http://${host}:${port}/hook`, sandbox));
    assert.ok('error' in result, host);
    assert.equal(result.error.code, 'ENOTFOUND', host);
    assert.match(result.error.message, /reserved name/, host);
  }
});
