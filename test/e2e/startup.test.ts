// `npm start` on a fresh machine: sandbox on SQLite with no setup, a demo merchant printed once,
// graceful SIGTERM, and a clear refusal of bad configuration (README.md "Quick start",
// "Configuration").
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { startKbankSim } from '../../src/dev/kbank-sim/server.ts';
import { fixture } from '../support/test-gateway.ts';
import {
  freePort,
  httpPost,
  killLeftoverGateways,
  runCliProcess,
  startGatewayProcess,
} from '../support/gateway-process.ts';
import { kbankEnvFor } from '../support/connector-harnesses.ts';

describe('start-up and shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-start-'));
  after(async () => {
    await killLeftoverGateways();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'data', 'gateway.db')}`,
    GATEWAY_SECRET_KEY_FILE: join(dir, 'data', 'secret.key'),
  };

  test('an empty sandbox database gets a demo merchant whose credentials are printed once and work', async () => {
    const port = await freePort();
    const first = await startGatewayProcess({ ...env, PORT: String(port) });
    const printed = /merchantid:\s+(\S+)\n\s+password:\s+(\S+)\n\s+webhook_secret:\s+(whsec_\S+)/.exec(first.stdout());
    assert.ok(printed, `credentials printed on stdout:\n${first.stdout()}`);
    const creds = { merchantid: printed[1]!, password: printed[2]! };
    const res = await httpPost(`${first.url}/transaction/s2s`, fixture('woocommerce-thai-debit.json', creds));
    assert.equal(res.status, 200);
    assert.equal(res.body.responsecode, '9');
    assert.ok(
      res.body.redirectUrl.startsWith(`http://127.0.0.1:${port}/transaction/Redirect?ID=`),
      'PUBLIC_BASE_URL defaults to HOST:PORT',
    );
    assert.equal(statSync(env.GATEWAY_SECRET_KEY_FILE).mode & 0o777, 0o600, 'the generated key file is private');
    assert.equal(await first.stop('SIGTERM'), 0, 'SIGTERM exits 0');
    assert.doesNotMatch(first.stderr(), /\n\s+at /, 'no stack trace on stderr');

    const second = await startGatewayProcess(env);
    assert.doesNotMatch(second.stdout(), /password:/, 'credentials are printed only once');
    const again = await httpPost(`${second.url}/transaction/status`, {
      ...creds,
      transactionid: res.body.transactionid,
    });
    assert.equal(again.status, 200, 'the demo credentials survive a restart (same key file)');
    assert.equal(again.body.transactionid, res.body.transactionid);
    assert.equal(await second.stop('SIGINT'), 0);
  });

  test('SIGTERM lets an in-flight request finish, then exits 0 and accepts nothing more', async () => {
    const created = await runCliProcess(
      ['merchant', 'create', '--name', 'Drain', '--payout-currency', 'THB', '--payout-account', '1234567890', '--json'],
      env,
    );
    const creds = JSON.parse(created.stdout);
    const gateway = await startGatewayProcess(env);
    const body = Buffer.from(
      JSON.stringify({ ...JSON.parse(fixture('string-amount.json', creds)), trackid: 'in-flight' }),
    );
    const { port } = new URL(gateway.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.write(
      `POST /transaction/s2s HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body.subarray(0, 40)); // the request is now in flight
    await new Promise((r) => setTimeout(r, 200));
    gateway.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // write, not end: a client half-close (FIN) makes Node's HTTP server abort the request it is
    // still working on, which is not what this test is about; Connection: close ends the exchange.
    socket.write(body.subarray(40));
    await once(socket, 'close');
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.match(answer, /"responsecode":"9"/);
    assert.deepEqual(await gateway.exited, { code: 0, signal: null }, 'exit 0 after draining');
    await assert.rejects(fetch(`${gateway.url}/healthz`), 'no longer accepting connections');
  });

  test('bad configuration stops the start with one message listing every bad key, exit 2, no stack trace', async () => {
    const result = await runCliProcess(
      [],
      {
        ...env,
        PORT: 'eighty',
        GATEWAY_MODE: 'production',
        LOG_LEVEL: 'loud',
        RETRY_LADDER: '0,soon',
        DATABASE_URL: 'mysql://x',
      },
      'src/main.ts',
    );
    assert.equal(result.code, 2);
    for (const key of ['PORT', 'GATEWAY_MODE', 'LOG_LEVEL', 'RETRY_LADDER', 'DATABASE_URL'])
      assert.match(result.stderr, new RegExp(`${key}`), `${key} is named`);
    assert.equal(result.stderr.match(/Invalid configuration/g)?.length, 1, 'one message');
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  test('live mode refuses to start without a live processor connector', async () => {
    const result = await runCliProcess(
      [],
      { ...env, GATEWAY_MODE: 'live', GATEWAY_SECRET_KEY: 'b2'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example' },
      'src/main.ts',
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /live processor connector/);
    assert.match(result.stderr, /Set PROCESSOR_CONNECTOR=kbank/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  test('PROCESSOR_CONNECTOR=kbank without its settings: exit 2, each missing one named', async () => {
    const result = await runCliProcess([], { ...env, PROCESSOR_CONNECTOR: 'kbank' }, 'src/main.ts');
    assert.equal(result.code, 2);
    for (const key of ['KBANK_BASE_URL', 'KBANK_CONSUMER_SECRET', 'KBANK_PARTNER_SECRET', 'KBANK_CALLBACK_PATH_TOKEN'])
      assert.match(result.stderr, new RegExp(`${key} is required with PROCESSOR_CONNECTOR=kbank`));
    assert.equal(result.stderr.match(/Invalid configuration/g)?.length, 1, 'one message');
  });

  test('live mode starts with PROCESSOR_CONNECTOR=kbank (kbank-sim); a TTL past the QR is warned of', async () => {
    const sim = await startKbankSim();
    try {
      const token = 'e2e-callback-token-0123456789abcdef';
      const gateway = await startGatewayProcess({
        ...env,
        // A database of its own: the others were first started with the sandbox's key file.
        DATABASE_URL: `sqlite:${join(dir, 'live-kbank', 'gateway.db')}`,
        GATEWAY_MODE: 'live',
        GATEWAY_SECRET_KEY: 'b2'.repeat(32),
        PUBLIC_BASE_URL: 'https://pay.example',
        ...kbankEnvFor(sim, token),
      });
      const callback = await fetch(`${gateway.url}/processor/kbank/notify/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"partnerTxnUid":"QNOTOURS0000001","statusCode":"00"}',
      });
      assert.deepEqual(await callback.json(), { statusCode: '00', errorCode: null, errorDesc: null });
      assert.equal(await gateway.stop('SIGTERM'), 0);
      const output = gateway.stdout() + gateway.stderr();
      assert.match(output, /TRANSACTION_TTL \(900 s\) is longer than KBANK_QR_TTL \(600 s\)/);
      for (const secret of [sim.credentials.consumerSecret, sim.credentials.partnerSecret, token])
        assert.ok(!output.includes(secret), 'no secret logged');
    } finally {
      await sim.close();
    }
  });

  test('live mode without GATEWAY_SECRET_KEY is a configuration error', async () => {
    const result = await runCliProcess(
      [],
      { ...env, GATEWAY_MODE: 'live', PUBLIC_BASE_URL: 'https://pay.example' },
      'src/main.ts',
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, /GATEWAY_SECRET_KEY is required in live mode/);
  });
});
