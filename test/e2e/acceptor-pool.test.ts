// The extra listeners on the API port (src/http/edge/acceptor-pool.ts): on Linux the gateway listens
// with SO_REUSEPORT on LISTEN_SOCKETS sockets (512 by default) so a busy event loop accepts up to
// that many connections per poll instead of one. Whichever socket accepted a connection, it is
// served by the same HTTP server, counts against the same MAX_CONNECTIONS, and is waited for when
// the gateway stops. A port another process listens on is still refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { listenSocketCount, REUSE_PORT_SUPPORTED } from '../../src/http/edge/acceptor-pool.ts';
import { startListeningGateway, type ListeningGateway } from '../support/browser.ts';
import { addMerchant, initiationBody, LogCapture, testConfig } from '../support/test-gateway.ts';
import { createTestStore } from '../support/test-store.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway } from '../../src/server.ts';

const skip = REUSE_PORT_SUPPORTED ? false : 'SO_REUSEPORT listeners exist on Linux only';

function portOf(gw: ListeningGateway): number {
  return Number(new URL(gw.gateway.url).port);
}

/** One request on a fresh connection; resolves with the raw answer once the server closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('extra listeners on the API port (LISTEN_SOCKETS=16)', { skip }, () => {
  let gw: ListeningGateway;
  before(async () => {
    gw = await startListeningGateway({ LISTEN_SOCKETS: '16' });
  });
  after(() => gw?.close());

  test('15 extra listeners; 200 connections are spread over them and all served', async () => {
    const port = portOf(gw);
    const before = gw.gateway.acceptors!.accepted();
    assert.equal(before.length, 15);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        exchange(port, 'GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
      ),
    );
    for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200/);
    const accepted = gw.gateway.acceptors!.accepted().map((n, i) => n - before[i]!);
    const byExtras = accepted.reduce((a, b) => a + b, 0);
    // The kernel hashes each connection to one of 16 sockets: some land on the server's own.
    assert.ok(byExtras > 100 && byExtras < 200, `extra listeners accepted ${byExtras} of 200`);
    assert.ok(accepted.filter((n) => n > 0).length >= 8, `spread: ${accepted.join(',')}`);
  });

  test(
    'an initiation over a connection an extra listener ' + 'accepted goes through the fast lane like any other',
    async () => {
      const port = portOf(gw);
      const creds = await addMerchant({ services: gw.gateway.services } as never);
      const body = JSON.stringify(initiationBody(creds, { trackid: 'via-acceptor' }));
      const answers = await Promise.all(
        Array.from({ length: 32 }, () =>
          exchange(
            port,
            `POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          ),
        ),
      );
      for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200/);
      assert.equal(answers.filter((a) => /idempotent-replayed: true/i.test(a)).length, 31, 'one created, 31 replays');
    },
  );
});

describe('MAX_CONNECTIONS counts the connections of every listener (MAX_CONNECTIONS=5)', { skip }, () => {
  let gw: ListeningGateway;
  before(async () => {
    gw = await startListeningGateway({ MAX_CONNECTIONS: '5', HEADERS_TIMEOUT: '30s', LISTEN_SOCKETS: '16' });
  });
  after(() => gw?.close());

  test('with five open, further connections are closed unanswered, whichever socket accepts them', async () => {
    const port = portOf(gw);
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
      await new Promise((r) => setTimeout(r, 200));
      // Ten more: with 16 sockets, several surely land on extra listeners.
      const refused = await Promise.all(
        Array.from({ length: 10 }, () => exchange(port, 'GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n').catch(() => '')),
      );
      for (const answer of refused) assert.equal(answer, '', 'a connection over the cap got an answer');
      held.pop()!.destroy();
      await new Promise((r) => setTimeout(r, 200));
      assert.match(
        await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
        /^HTTP\/1\.1 200/,
      );
    } finally {
      for (const s of held) s.destroy();
    }
  });
});

test('stop() waits for a request in flight on a connection an extra listener accepted', { skip }, async () => {
  const gw = await startListeningGateway({ SHUTDOWN_IDLE_GRACE: '0s', LISTEN_SOCKETS: '16' });
  const port = portOf(gw);
  const creds = await addMerchant({ services: gw.gateway.services } as never);
  const body = JSON.stringify(initiationBody(creds, { trackid: 'in-flight-at-stop' }));
  // Connections until one lands on an extra listener; its request is sent in two parts so it is in flight when stop()
  // begins.
  const extrasBefore = () => gw.gateway.acceptors!.accepted().reduce((a, b) => a + b, 0);
  let socket: net.Socket | undefined;
  for (let i = 0; i < 50 && !socket; i++) {
    const before = extrasBefore();
    const candidate = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => candidate.once('connect', resolve));
    await new Promise((r) => setTimeout(r, 20));
    if (extrasBefore() > before) socket = candidate;
    else candidate.destroy();
  }
  assert.ok(socket, 'no connection landed on an extra listener');
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(
    `POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  );
  await new Promise((r) => setTimeout(r, 50));
  const stopped = gw.close();
  await new Promise((r) => setTimeout(r, 100));
  socket.write(body.slice(10));
  await Promise.all([stopped, closed]);
  assert.match(answer, /^HTTP\/1\.1 200/, answer);
});

/** The error code startGateway fails with; a gateway that starts instead is stopped and the test fails. */
async function startFailure(
  config: ReturnType<typeof testConfig>,
  testStore: Awaited<ReturnType<typeof createTestStore>>,
): Promise<string | undefined> {
  try {
    const started = await startGateway(config, {
      logger: createLogger('warn', new LogCapture()),
      store: testStore.store,
    });
    await started.stop();
    return 'started';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

test('by default 512 sockets listen on the API port, all serving', { skip }, async () => {
  const gw = await startListeningGateway();
  try {
    assert.equal(gw.gateway.acceptors!.accepted().length, 511);
    const answers = await Promise.all(
      Array.from({ length: 64 }, () =>
        exchange(portOf(gw), 'GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
      ),
    );
    for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200/);
  } finally {
    await gw.close();
  }
});

test('LISTEN_SOCKETS=1: one listener, no extra sockets', async () => {
  const gw = await startListeningGateway({ LISTEN_SOCKETS: '1' });
  try {
    assert.equal(gw.gateway.acceptors, undefined);
    assert.match(
      await exchange(portOf(gw), 'GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n'),
      /^HTTP\/1\.1 200/,
    );
  } finally {
    await gw.close();
  }
});

test(
  'a port another process listens on is refused (EADDRINUSE), as with one listener: no silent sharing',
  { skip },
  async () => {
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (other.address() as net.AddressInfo).port;
    const testStore = await createTestStore('sqlite');
    try {
      const config = testConfig({
        DATABASE_URL: testStore.databaseUrl,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
      });
      assert.equal(await startFailure(config, testStore), 'EADDRINUSE');
    } finally {
      other.close();
      await testStore.cleanup();
    }
  },
);

test('a second gateway on the same port is refused while the first listens on its 512 sockets', { skip }, async () => {
  const first = await startListeningGateway();
  const testStore = await createTestStore('sqlite');
  try {
    const config = testConfig({
      DATABASE_URL: testStore.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(portOf(first)),
      LOG_LEVEL: 'warn',
    });
    assert.equal(await startFailure(config, testStore), 'EADDRINUSE');
  } finally {
    await testStore.cleanup();
    await first.close();
  }
});

test('LISTEN_SOCKETS takes at most 1/8 of the open-file limit (/proc/self/limits), at least one', () => {
  const limits = (soft: number) =>
    `Limit                     Soft Limit           Hard Limit           Units\n` +
    `Max processes             96365                96365                processes\n` +
    `Max open files            ${soft}                ${soft}                files\n`;
  assert.equal(listenSocketCount(512, limits(20000)), 512);
  assert.equal(listenSocketCount(512, limits(4096)), 512);
  assert.equal(listenSocketCount(512, limits(1024)), 128);
  assert.equal(listenSocketCount(512, limits(4)), 1);
  assert.equal(listenSocketCount(16, limits(1024)), 16);
  assert.equal(listenSocketCount(512, undefined), 512, 'no limits file (not Linux): as asked');
  assert.equal(listenSocketCount(512, 'garbage'), 512);
});
