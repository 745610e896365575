// SIGTERM while 24 connections initiate payments back to back (real sockets on 127.0.0.1), on both
// stores. Every request that reaches the closing gateway gets an answer (200, or 503 with
// Connection: close) or its connect is refused; none sees its connection reset, and every payment
// answered 200 is stored (docs/deployment.md "Signals and supervisors").
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestDatabase } from '../support/test-store.ts';
import { testDialects } from '../support/dialects.ts';
import { killLeftoverGateways, runCliProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { initiationBody, TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';
import { openStoreEngine } from '../../src/store/engine.ts';

after(killLeftoverGateways);

type Tally = { answered: Map<number, number>; refused: number; resets: number; ok: string[] };

/**
 * One client: initiations back to back on a keep-alive connection, a new connection after a
 * `Connection: close` answer, until a connect is refused. A connection that fails or closes with
 * a request outstanding counts as a reset.
 */
function client(port: number, creds: { merchantid: string; password: string }, name: string, tally: Tally) {
  let serial = 0;
  return new Promise<void>((resolve) => {
    const connect = () => {
      const socket = net.connect(port, '127.0.0.1');
      let buffer = '';
      let outstanding: string | undefined;
      let closing = false;
      let connected = false;
      const send = () => {
        outstanding = `${name}-${++serial}`;
        const body = JSON.stringify(
          initiationBody(creds, {
            trackid: outstanding,
            bill_amount: '150.00',
            serverUrl: 'http://127.0.0.1:9/notify',
            productdesc: 'load',
          }),
        );
        socket.write(
          `POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      };
      socket.on('connect', () => {
        connected = true;
        send();
      });
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        for (;;) {
          const headEnd = buffer.indexOf('\r\n\r\n');
          if (headEnd < 0) return;
          const head = buffer.slice(0, headEnd);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffer.length < headEnd + 4 + length) return;
          buffer = buffer.slice(headEnd + 4 + length);
          const status = Number(head.split(' ')[1]);
          tally.answered.set(status, (tally.answered.get(status) ?? 0) + 1);
          if (status === 200) tally.ok.push(outstanding!);
          outstanding = undefined;
          if (/\r\nconnection: close/i.test(head)) {
            closing = true;
            socket.end();
            return;
          }
          send();
        }
      });
      let failed: string | undefined;
      socket.on('error', (error: NodeJS.ErrnoException) => (failed = error.code ?? error.message));
      socket.on('close', () => {
        if (!connected && failed === 'ECONNREFUSED') {
          tally.refused += 1;
          return resolve();
        }
        if (outstanding !== undefined || (failed !== undefined && !closing)) tally.resets += 1;
        if (tally.resets > 1000) return resolve();
        setImmediate(connect);
      });
    };
    connect();
  });
}

for (const { dialect, skip } of await testDialects()) {
  describe(`SIGTERM under load (${dialect})`, { skip }, () => {
    test('24 connections initiating: answers or refused connects, no resets; every 200 is stored', async (t) => {
      const database = await createTestDatabase(dialect);
      t.after(() => database.drop());
      const env = {
        DATABASE_URL: database.databaseUrl,
        GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
        CREATE_DEMO_MERCHANT: 'false',
        RATE_LIMIT_PER_MERCHANT_PER_SECOND: '1000000',
      };
      const created = await runCliProcess(
        [
          'merchant',
          'create',
          '--name',
          'Load',
          '--payout-currency',
          'THB',
          '--payout-account',
          '1234567890',
          '--json',
        ],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const creds = JSON.parse(created.stdout) as { merchantid: string; password: string };
      const gateway = await startGatewayProcess(env);
      const port = Number(new URL(gateway.url).port);

      const tally: Tally = { answered: new Map(), refused: 0, resets: 0, ok: [] };
      const clients = Array.from({ length: 24 }, (_, i) => client(port, creds, `c${i}`, tally));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const code = await gateway.stop('SIGTERM');
      await Promise.all(clients);
      const answers = JSON.stringify([...tally.answered]);
      const summary = `answers ${answers}, refused ${tally.refused}, resets ${tally.resets}`;
      t.diagnostic(summary);

      assert.equal(code, 0, gateway.stderr());
      assert.equal(tally.resets, 0, summary);
      for (const status of tally.answered.keys()) assert.ok(status === 200 || status === 503, summary);
      assert.ok((tally.answered.get(200) ?? 0) > 0 && (tally.answered.get(503) ?? 0) > 0, summary);

      const engine = openStoreEngine(database.databaseUrl);
      try {
        const stored = await engine.db.selectFrom('transactions').select('trackid').execute();
        const trackids = new Set(stored.map((row) => row.trackid));
        assert.deepEqual(
          tally.ok.filter((trackid) => !trackids.has(trackid)),
          [],
          'every payment answered 200 is stored',
        );
      } finally {
        await engine.close();
      }
    });
  });
}
