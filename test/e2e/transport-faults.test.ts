// Transport faults (docs/operations.md "How faults answer"), on a real listening server and raw
// sockets (framing faults and slow clients cannot be sent through inject): every answer has the
// API's error shape, and slow or idle clients are cut off by the header / request timeouts and the
// connection cap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { assertErrorBody } from '../support/error-body.ts';

type RawAnswer = {
  status: number;
  headers: Record<string, string>;
  body: Record<string, any>;
  raw: string;
  closed: boolean;
};

/** Opens a socket, lets `drive` write to it, collects everything until the server closes it (or `waitMs`). */
function exchange(
  port: number,
  drive: (socket: net.Socket) => void,
  waitMs = 3000,
): Promise<{ text: string; closedByServer: boolean; elapsedMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => drive(socket));
    let text = '';
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer, elapsedMs: Date.now() - started });
    };
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const timer = setTimeout(() => finish(false), waitMs);
  });
}

function parse(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const raw = rest.join('\r\n\r\n');
  let body: Record<string, any> = {};
  try {
    body = JSON.parse(raw);
  } catch {
    // left empty: assertErrorBody then fails with the raw text
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, raw, closed: false };
}

const malformed = (status: number) => ({
  status,
  code: '2000',
  tag: 'MALFORMED_REQUEST',
  trackid: null,
  merchantid: null,
});

describe('framing faults answer in the API error shape', () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite');
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as net.AddressInfo).port;
  });
  after(() => gw?.close());

  const send = async (request: string) => parse((await exchange(port, (s) => s.write(request))).text);

  test('a path with a bad percent-escape (POST /transaction/s2s%zz) → 400 MALFORMED_REQUEST', async () => {
    const res = await send(
      'POST /transaction/s2s%zz HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    assertErrorBody(res, malformed(400));
    assert.doesNotMatch(res.raw, /FST_ERR|statusCode/);
  });

  test('a missing Host header → 400 MALFORMED_REQUEST naming Host', async () => {
    const res = await send(
      'POST /transaction/s2s HTTP/1.1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    assertErrorBody(res, malformed(400));
    assert.match(res.body.error_text, /Host/);
  });

  for (const [name, request] of [
    ['a non-numeric Content-Length', 'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Length: zz\r\n\r\n{}'],
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    [
      'broken chunked framing',
      'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\n' +
        'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
    ],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
    ],
  ] as const) {
    test(`${name} → 400 MALFORMED_REQUEST, connection closed`, async () => {
      const res = await send(request);
      assertErrorBody(res, malformed(400));
      assert.equal(res.headers.connection, 'close');
    });
  }

  test('headers larger than Node accepts → 431 in the API error shape', async () => {
    const res = await send(`GET /healthz HTTP/1.1\r\nHost: gw\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertErrorBody(res, malformed(431));
  });
});

describe('slow and idle clients are cut off (HEADERS_TIMEOUT=1s, REQUEST_TIMEOUT=2s)', () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite', { HEADERS_TIMEOUT: '1s', REQUEST_TIMEOUT: '2s', KEEP_ALIVE_TIMEOUT: '1s' });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as net.AddressInfo).port;
  });
  after(() => gw?.close());

  // Today's defaults would keep these sockets open for a minute or more; the bound below is
  // far above the configured limits so a busy machine does not make the test flaky.
  const CUT_OFF_WITHIN_MS = 15_000;

  test('20 slow-header and 20 slow-body sockets are all answered 408 and closed', async () => {
    const slowHeader = (s: net.Socket) => {
      s.write('POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\n');
      const t = setInterval(() => (s.writable ? s.write('X-Slow: 1\r\n') : clearInterval(t)), 300);
      s.once('close', () => clearInterval(t));
    };
    const slowBody = (s: net.Socket) => {
      s.write(
        'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\n' +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
      );
      const t = setInterval(() => (s.writable ? s.write(' ') : clearInterval(t)), 300);
      s.once('close', () => clearInterval(t));
    };
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => exchange(port, slowHeader, CUT_OFF_WITHIN_MS)),
      ...Array.from({ length: 20 }, () => exchange(port, slowBody, CUT_OFF_WITHIN_MS)),
    ]);
    for (const result of results) {
      assert.ok(result.closedByServer, `socket still open after ${CUT_OFF_WITHIN_MS} ms`);
      assertErrorBody(parse(result.text), malformed(408));
    }
  });

  test('a connection that never sends a byte is closed', async () => {
    const result = await exchange(port, () => {}, CUT_OFF_WITHIN_MS);
    assert.ok(result.closedByServer, 'idle socket still open');
  });

  test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT', async () => {
    const result = await exchange(port, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n'), CUT_OFF_WITHIN_MS);
    assert.ok(result.closedByServer, 'keep-alive socket still open');
    assert.match(result.text, /^HTTP\/1\.1 200/);
  });

  test('a request that arrives in time is answered normally', async () => {
    const result = await exchange(port, (s) =>
      s.write('GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
    );
    assert.match(result.text, /^HTTP\/1\.1 200/);
  });
});

describe('the connection cap (MAX_CONNECTIONS=5)', () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite', { MAX_CONNECTIONS: '5', HEADERS_TIMEOUT: '30s' });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as net.AddressInfo).port;
  });
  after(() => gw?.close());

  test('a sixth connection is closed at once; after one closes, a new one is served', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => {});
          }),
      ),
    );
    try {
      await new Promise((r) => setTimeout(r, 200)); // let the server accept all five
      const sixth = await exchange(port, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n'), 5000);
      assert.ok(sixth.closedByServer, 'the sixth connection was not closed');
      assert.equal(sixth.text, '', 'the sixth connection got no answer');
      held.pop()!.destroy();
      await new Promise((r) => setTimeout(r, 200));
      const next = await exchange(port, (s) =>
        s.write('GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
      );
      assert.match(next.text, /^HTTP\/1\.1 200/);
    } finally {
      for (const s of held) s.destroy();
    }
  });
});
