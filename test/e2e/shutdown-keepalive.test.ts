// SIGTERM while clients keep sending on keep-alive connections. Every request the gateway received
// is answered (200 before the signal, 503 + Connection: close while draining); no client sees its
// connection closed under a request it had sent (docs/deployment.md "Signals and supervisors").
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestDatabase } from '../support/test-store.ts';
import { killLeftoverGateways, startGatewayProcess } from '../support/gateway-process.ts';
import { TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';

after(killLeftoverGateways);

type LoopResult = { answered: number[]; unanswered: number };

/** Sends GET /healthz back to back on one keep-alive connection until the server closes it. */
function keepAliveLoop(port: number): Promise<LoopResult> {
  return new Promise((resolve) => {
    const answered: number[] = [];
    let buffer = '';
    let outstanding = false;
    let closeAfter = false;
    const socket = net.connect(port, '127.0.0.1', send);
    function send() {
      if (closeAfter) return socket.end();
      outstanding = true;
      socket.write('GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n');
    }
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buffer.slice(0, headEnd);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) return;
        buffer = buffer.slice(headEnd + 4 + length);
        outstanding = false;
        answered.push(Number(head.split(' ')[1]));
        if (/\r\nconnection: close/i.test(head)) closeAfter = true;
        send();
      }
    });
    const done = () => resolve({ answered, unanswered: outstanding ? 1 : 0 });
    socket.on('close', done);
    socket.on('error', () => {});
  });
}

test('SIGTERM under keep-alive traffic: every request sent is answered, the process exits 0', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.after(() => database.drop());
  const gateway = await startGatewayProcess({
    DATABASE_URL: database.databaseUrl,
    GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    CREATE_DEMO_MERCHANT: 'false',
    // Longer than the default 1 s: on a machine busy enough that the event loop lags by a second,
    // a request sent within the grace would otherwise be read only after it ended.
    SHUTDOWN_IDLE_GRACE: '3s',
  });
  const port = Number(new URL(gateway.url).port);
  const loops = Array.from({ length: 30 }, () => keepAliveLoop(port));
  await new Promise((r) => setTimeout(r, 500));
  const code = await gateway.stop('SIGTERM');
  const results = await Promise.all(loops);

  assert.equal(code, 0, gateway.stderr());
  const unanswered = results.reduce((n, r) => n + r.unanswered, 0);
  assert.equal(unanswered, 0, `${unanswered} connection(s) were closed under a request already sent`);
  const statuses = new Set(results.flatMap((r) => r.answered));
  assert.ok(statuses.has(200), 'requests before the signal were served');
  assert.ok(results.every((r) => r.answered.length > 0));
  for (const status of statuses) assert.ok(status === 200 || status === 503, `unexpected status ${status}`);
});
