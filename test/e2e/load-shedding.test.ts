// In-flight work is bounded (docs/deployment.md "Limits under load and slow clients"). With
// MAX_IN_FLIGHT requests being worked on, the next one is answered 503 SERVICE_UNAVAILABLE +
// Retry-After (the API's error shape) after SHED_DELAY, probes still answer, and capacity comes
// back when the held requests finish.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  addMerchant,
  initiationBody,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { assertErrorBody } from '../support/error-body.ts';
import { httpPost } from '../support/gateway-process.ts';
import { testDialects } from '../support/dialects.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`load shedding at MAX_IN_FLIGHT=2 [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let port: number;
    let url: string;
    before(async () => {
      gw = await startTestGateway(dialect, { MAX_IN_FLIGHT: '2' });
      creds = await addMerchant(gw);
      await gw.app.listen({ port: 0, host: '127.0.0.1' });
      port = (gw.app.server.address() as net.AddressInfo).port;
      url = `http://127.0.0.1:${port}`;
    });
    after(() => gw?.close());

    /** A request whose body is still arriving: it holds an in-flight slot until `finish()`. */
    async function heldRequest(body: string): Promise<{ finish(): Promise<string> }> {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      let answer = '';
      socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
      socket.write(
        `POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n` +
          `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((r) => setTimeout(r, 100)); // the server has read the headers
      return {
        async finish() {
          socket.write(body.slice(5));
          await new Promise((r) => socket.once('close', r));
          return answer;
        },
      };
    }

    test('the third request is shed with 503 + Retry-After; probes answer; capacity returns', async () => {
      const held = await Promise.all(
        [1, 2].map((n) => heldRequest(JSON.stringify(initiationBody(creds, { trackid: `held-${n}` })))),
      );

      // Shed before its body is read (that is what keeps shedding cheap), so nothing is echoed.
      const shed = await httpPost(`${url}/transaction/s2s`, initiationBody(creds, { trackid: 'shed-1' }));
      assertErrorBody(
        { ...shed, headers: Object.fromEntries(shed.headers), raw: JSON.stringify(shed.body) },
        { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', trackid: null },
      );
      assert.ok(Number(shed.headers.get('retry-after')) > 0, 'Retry-After is set');
      const stored = await gw.testStore.db
        .selectFrom('transactions')
        .select('id')
        .where('trackid', '=', 'shed-1')
        .execute();
      assert.equal(stored.length, 0, 'a shed request writes nothing');

      const shedStatus = await httpPost(`${url}/transaction/status`, { ...creds, trackid: 'held-1' });
      assertErrorBody(
        { ...shedStatus, headers: Object.fromEntries(shedStatus.headers), raw: JSON.stringify(shedStatus.body) },
        { status: 503, code: '5003', tag: 'SERVICE_UNAVAILABLE', shape: 'status' },
      );
      const shedBalance = await httpPost(`${url}/GatewayInstaPay/QueryPayoutBalance`, creds);
      assert.equal(shedBalance.status, 503);
      assert.equal(shedBalance.body.result, 'Failed', 'the balance operation keeps its own error shape');
      assert.equal(shedBalance.body.responsecode, '5003');

      for (const probe of ['/healthz', '/readyz', '/metrics']) {
        assert.equal((await fetch(`${url}${probe}`)).status, 200, `${probe} is never shed`);
      }

      const answers = await Promise.all(held.map((h) => h.finish()));
      for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200/, 'held requests complete normally');

      const after = await httpPost(`${url}/transaction/s2s`, initiationBody(creds, { trackid: 'after-1' }));
      assert.equal(after.status, 200, JSON.stringify(after.body));
    });

    test('a client that disconnects mid-request frees its slot', async () => {
      const sockets = await Promise.all(
        [1, 2].map(async () => {
          const s = net.connect(port, '127.0.0.1');
          await new Promise((r) => s.once('connect', r));
          s.write(
            'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\n' +
              'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
          );
          return s;
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(
        (await httpPost(`${url}/transaction/s2s`, initiationBody(creds, { trackid: 'shed-2' }))).status,
        503,
      );
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(
        (await httpPost(`${url}/transaction/s2s`, initiationBody(creds, { trackid: 'after-2' }))).status,
        200,
      );
    });
  });
}

describe('shed answers are held for SHED_DELAY (MAX_IN_FLIGHT=1, SHED_DELAY=300ms)', () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  let port: number;
  before(async () => {
    gw = await startTestGateway('sqlite', { MAX_IN_FLIGHT: '1', SHED_DELAY: '300ms' });
    creds = await addMerchant(gw);
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as net.AddressInfo).port;
  });
  after(() => gw?.close());

  test(
    'on the JSON fast lane and through Fastify, a shed request is answered 503 no sooner ' +
      'than the delay; a client that leaves meanwhile costs nothing',
    async () => {
      // One request holds the only slot: its body never completes until the end.
      const holder = net.connect(port, '127.0.0.1');
      await new Promise((r) => holder.once('connect', r));
      holder.write(
        'POST /transaction/s2s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
      await new Promise((r) => setTimeout(r, 100));
      try {
        // A client that leaves while its answer is held: nothing breaks, nothing is written.
        const leaver = net.connect(port, '127.0.0.1');
        await new Promise((r) => leaver.once('connect', r));
        leaver.write(
          'POST /transaction/status HTTP/1.1\r\nHost: gw\r\n' +
            'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        );
        await new Promise((r) => setTimeout(r, 20));
        leaver.destroy();

        for (const [path, body] of [
          ['/transaction/s2s', initiationBody(creds, { trackid: 'held-shed' })], // the JSON fast lane
          ['/sandbox/transaction/complete', { ...creds, transactionid: 'tx-none' }], // Fastify's hook
        ] as const) {
          const started = performance.now();
          const answer = await httpPost(`http://127.0.0.1:${port}${path}`, body);
          const waited = performance.now() - started;
          assert.equal(answer.status, 503, path);
          assert.equal(answer.body.error_code_tag, 'SERVICE_UNAVAILABLE', path);
          assert.ok(Number(answer.headers.get('retry-after')) > 0, `${path}: Retry-After is set`);
          // A lower bound only: the point is that the answer was held, not how fast anything is.
          assert.ok(waited >= 290, `${path}: answered after ${waited.toFixed(0)} ms, before the 300 ms delay`);
        }
        for (const probe of ['/healthz', '/readyz'])
          assert.equal(
            (await fetch(`http://127.0.0.1:${port}${probe}`)).status,
            200,
            `${probe} is never shed, nor held`,
          );
      } finally {
        holder.destroy();
      }
      await new Promise((r) => setTimeout(r, 200)); // the holder's slot is given back when its socket closes
      assert.equal(
        (await httpPost(`http://127.0.0.1:${port}/transaction/s2s`, initiationBody(creds, { trackid: 'after-held' })))
          .status,
        200,
      );
    },
  );
});
