// Connection reuse in the notification sender (http-sender.ts): consecutive sends share a
// keep-alive connection, yet a pooled connection never lets a request past the outbound policy,
// new connections are checked again, a stale pooled connection is retried once on a new one
// (only that answer counts), and retries of an event (`fresh`) never reuse a connection.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo, Socket } from 'node:net';
import { HIDDEN_ERROR, NotificationSender } from '../../src/delivery/http-sender.ts';
import type { Resolver } from '../../src/delivery/guarded-lookup.ts';
import type { OutboundPolicy } from '../../src/domain/outbound-policy.ts';

type Seen = { socket: number; nth: number; body: string; id: string | undefined };

/** A local merchant endpoint that numbers its connections and the requests on each. */
class Endpoint {
  readonly seen: Seen[] = [];
  /** What to do with the n-th request on a connection (default: answer 200). */
  onRequest: (nth: number, req: http.IncomingMessage, res: http.ServerResponse) => void = (_n, _req, res) =>
    res.end('ok');
  readonly #server: http.Server;
  readonly #sockets = new Map<Socket, { id: number; requests: number }>();
  port = 0;

  constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const state = this.#sockets.get(req.socket)!;
        state.requests++;
        this.seen.push({
          socket: state.id,
          nth: state.requests,
          body: Buffer.concat(chunks).toString(),
          id: req.headers['webhook-id'] as string | undefined,
        });
        this.onRequest(state.requests, req, res);
      });
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.set(socket, { id: this.#sockets.size + 1, requests: 0 });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  /** Closes idle keep-alive connections from the server's side. */
  closeIdle(): void {
    this.#server.closeIdleConnections();
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

const sandbox: OutboundPolicy = { mode: 'sandbox', allowHttp: true, allowList: [] };

function notification(url: string, id: string, fresh = false) {
  return {
    url,
    body: Buffer.from(`{"event_id":"${id}"}`),
    headers: { 'content-type': 'application/json', 'webhook-id': id },
    timeoutMs: 2000,
    fresh,
  };
}

/** DNS answers from a table the test can change; counts lookups. */
function tableDns(table: Record<string, string>): { resolver: Resolver; lookups: () => number } {
  let count = 0;
  const resolver: Resolver = (host, _opts, cb) => {
    count++;
    const address = table[host];
    if (!address) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(null, [{ address, family: 4 } satisfies LookupAddress]);
  };
  return { resolver, lookups: () => count };
}

describe('notification sender: keep-alive connections', () => {
  let endpoint: Endpoint;
  let sender: NotificationSender | undefined;
  before(async () => {
    endpoint = new Endpoint();
    await endpoint.start();
  });
  beforeEach(() => {
    endpoint.seen.length = 0;
    endpoint.onRequest = (_n, _req, res) => res.end('ok');
  });
  after(async () => {
    sender?.close();
    await endpoint.stop();
  });

  test('consecutive sends to one origin share a connection; a retry (fresh) opens its own', async () => {
    sender = new NotificationSender({ policy: sandbox });
    const url = `http://127.0.0.1:${endpoint.port}/hook`;
    for (const id of ['evt_1', 'evt_2', 'evt_3']) {
      const outcome = await sender.send(notification(url, id));
      assert.equal(outcome.kind === 'response' && outcome.status, 200);
    }
    const retry = await sender.send(notification(url, 'evt_4', true));
    assert.equal(retry.kind === 'response' && retry.status, 200);
    const sockets = endpoint.seen.map((s) => s.socket);
    assert.equal(new Set(sockets.slice(0, 3)).size, 1, 'the first three came on one connection');
    assert.ok(!sockets.slice(0, 3).includes(sockets[3]!), 'the retry came on a new connection');
    sender.close();
  });

  test(
    'a pooled connection serves only its own host name: ' + 'a refused name with the same address is still refused',
    async () => {
      const dns = tableDns({ 'good.example': '127.0.0.1', 'evil.example': '127.0.0.1' });
      // Live mode refuses loopback; the allow-list trusts good.example by name only.
      sender = new NotificationSender({
        policy: { mode: 'live', allowHttp: true, allowList: ['good.example'] },
        resolver: dns.resolver,
      });
      const good = await sender.send(notification(`http://good.example:${endpoint.port}/hook`, 'evt_good'));
      assert.equal(good.kind === 'response' && good.status, 200);
      const evil = await sender.send(notification(`http://evil.example:${endpoint.port}/hook`, 'evt_evil'));
      assert.equal(evil.kind, 'error');
      assert.match(
        evil.kind === 'error' ? evil.error : '',
        /^refused by the outbound policy: evil\.example.*127\.0\.0\.1 is loopback/,
      );
      assert.deepEqual(
        endpoint.seen.map((s) => s.id),
        ['evt_good'],
        'nothing went over the pooled connection for the refused name',
      );
      sender.close();
    },
  );

  test(
    'reuse skips no check: a new connection after the pooled ' +
      'one closed is looked up and checked again (DNS rebinding)',
    async () => {
      const table: Record<string, string> = { 'shop.example': '127.0.0.1' };
      const dns = tableDns(table);
      // 127.0.0.1 is allow-listed by address; 10.0.0.1 (private) is refused in live mode.
      sender = new NotificationSender({
        policy: { mode: 'live', allowHttp: true, allowList: ['127.0.0.1'] },
        resolver: dns.resolver,
      });
      const url = `http://shop.example:${endpoint.port}/hook`;
      assert.equal((await sender.send(notification(url, 'evt_a'))).kind, 'response');
      assert.equal((await sender.send(notification(url, 'evt_b'))).kind, 'response');
      assert.equal(dns.lookups(), 1, 'the second send reused the checked connection');

      table['shop.example'] = '10.0.0.1';
      endpoint.closeIdle();
      await new Promise((resolve) => setTimeout(resolve, 50)); // the client sees the close
      const rebound = await sender.send(notification(url, 'evt_c'));
      assert.equal(rebound.kind, 'error');
      assert.match(
        rebound.kind === 'error' ? rebound.error : '',
        /^refused by the outbound policy: .*10\.0\.0\.1 is private/,
      );
      assert.deepEqual(
        endpoint.seen.map((s) => s.id),
        ['evt_a', 'evt_b'],
      );
      sender.close();
    },
  );

  test(
    'a stale pooled connection (closed by the server as the request ' +
      'arrives) is retried once on a new one; only that answer counts',
    async () => {
      sender = new NotificationSender({ policy: sandbox });
      const url = `http://127.0.0.1:${endpoint.port}/hook`;
      // The second request on any connection finds it closing: dropped without an answer.
      endpoint.onRequest = (nth, req, res) => (nth === 2 ? req.socket.destroy() : res.end('ok'));
      assert.equal((await sender.send(notification(url, 'evt_first'))).kind, 'response');
      const outcome = await sender.send(notification(url, 'evt_second'));
      assert.equal(outcome.kind, 'response', 'not reported as a failure of the merchant');
      assert.equal(outcome.kind === 'response' && outcome.status, 200);
      assert.equal(outcome.kind === 'response' && outcome.excerpt, 'ok');
      const second = endpoint.seen.filter((s) => s.id === 'evt_second');
      assert.equal(second.length, 2, 'the same notification went twice (at-least-once)');
      assert.equal(second[0]!.body, second[1]!.body);
      assert.notEqual(second[0]!.socket, second[1]!.socket);
      assert.equal(second[1]!.nth, 1, 'the second time on a new connection');
      sender.close();
    },
  );

  test("a reset on a new connection is the endpoint's answer: reported, not retried", async () => {
    sender = new NotificationSender({ policy: sandbox });
    endpoint.onRequest = (_n, req) => req.socket.destroy();
    const outcome = await sender.send(notification(`http://127.0.0.1:${endpoint.port}/hook`, 'evt_reset', true));
    assert.equal(outcome.kind, 'error');
    assert.match(outcome.kind === 'error' ? outcome.error : '', /ECONNRESET|socket hang up/);
    assert.equal(endpoint.seen.length, 1);
    sender.close();
  });
});

// OUTBOUND_PUBLIC_ONLY (docs/deployment.md, "A sandbox shared with merchants you do not trust"):
// a sandbox that reaches public addresses only, and records no answer or socket error of a
// non-public target the operator's OUTBOUND_ALLOWLIST opened.
describe('notification sender: a public-only sandbox', () => {
  let endpoint: Endpoint;
  before(async () => {
    endpoint = new Endpoint();
    await endpoint.start();
    endpoint.onRequest = (_n, _req, res) => res.end('internal service says hello');
  });
  after(() => endpoint.stop());

  const publicOnly: OutboundPolicy = { mode: 'sandbox', allowHttp: true, allowList: [], publicOnly: true };

  test('loopback and private targets are refused, and a refused name does not say what it resolved to', async () => {
    const sender = new NotificationSender({
      policy: publicOnly,
      resolver: tableDns({ 'db.corp.lan': '10.0.0.7' }).resolver,
    });
    const literal = await sender.send(notification(`http://127.0.0.1:${endpoint.port}/hook`, 'evt_po_1'));
    assert.equal(literal.kind, 'error');
    assert.match(literal.kind === 'error' ? literal.error : '', /refused by the outbound policy.*public-only sandbox/);
    const named = await sender.send(notification('http://db.corp.lan/hook', 'evt_po_2'));
    assert.equal(
      named.kind === 'error' && named.error,
      'refused by the outbound policy: db.corp.lan: ' +
        'db.corp.lan is not a public address, refused in public-only sandbox mode',
    );
    assert.equal(endpoint.seen.length, 0, 'nothing reached the endpoint');
    sender.close();
  });

  test('an allow-listed non-public target is reached; neither its answer nor a socket error is recorded', async () => {
    const policy: OutboundPolicy = { ...publicOnly, allowList: ['127.0.0.1'] };
    const sender = new NotificationSender({ policy });
    const answered = await sender.send(notification(`http://127.0.0.1:${endpoint.port}/hook`, 'evt_po_3'));
    assert.equal(answered.kind === 'response' && answered.status, 200, 'the status still decides the delivery');
    assert.equal(answered.kind === 'response' && answered.excerpt, null);
    const closed = await sender.send(notification('http://127.0.0.1:1/hook', 'evt_po_4'));
    assert.equal(closed.kind === 'error' && closed.error, HIDDEN_ERROR);
    sender.close();

    // The same target in an ordinary sandbox: the answer and the socket error are recorded.
    const open = new NotificationSender({ policy: sandbox });
    const shown = await open.send(notification(`http://127.0.0.1:${endpoint.port}/hook`, 'evt_po_5'));
    assert.equal(shown.kind === 'response' && shown.excerpt, 'internal service says hello');
    const refused = await open.send(notification('http://127.0.0.1:1/hook', 'evt_po_6'));
    assert.match(refused.kind === 'error' ? refused.error : '', /ECONNREFUSED/);
    open.close();
  });
});
