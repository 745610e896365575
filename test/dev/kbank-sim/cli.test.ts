// `gateway kbank-sim` as a real process: it prints what a connector needs (base URL and
// credentials, one JSON object with --json), serves the token and QR calls with those
// credentials, registers --callback-url for its merchant, writes the gateway's settings with
// --gateway-env, and stops cleanly on SIGINT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configWarnings, loadConfig, readEnvironment } from '../../../src/config.ts';
import { connectorFor } from '../../../src/connectors/connector-for.ts';
import { credentialsOf, resolveConfig } from '../../../src/dev/kbank-sim/config.ts';
import { eventually } from '../../support/gateway-process.ts';
import { startCliServer } from '../../support/cli-server.ts';
import { basicAuth, request } from '../../support/kbank-sim-http.ts';

const startCli = (args: string[]) => startCliServer('kbank-sim', args);

test('kbank-sim --json: one JSON object, working credentials, --callback-url registered, SIGINT stops it', async () => {
  const cli = startCli(['--json', '--seed', 'cli-test', '--callback-url', 'http://127.0.0.1:9/kbank']);
  try {
    await eventually(async () => cli.out().includes('\n') || cli.child.exitCode !== null, 15_000, 50);
    const summary = JSON.parse(cli.out().split('\n')[0]!);
    assert.match(summary.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const expected = credentialsOf(resolveConfig({ seed: 'cli-test' }));
    for (const key of ['consumerId', 'consumerSecret', 'partnerId', 'partnerSecret', 'merchantId'] as const)
      assert.equal(summary[key], expected[key], `${key} comes from --seed`);
    assert.match(summary.examplePay, /^curl .*\/__sim\/pay /);
    assert.equal(cli.err().trim(), 'Ctrl-C stops.');

    const token = await request(`${summary.url}/v2/oauth/token`, {
      headers: basicAuth(summary.consumerId, summary.consumerSecret),
      body: 'grant_type=client_credentials',
    });
    assert.equal(token.status, 200, token.text);
    const state = await request(`${summary.url}/__sim/state`, { method: 'GET' });
    assert.equal(state.json.config.merchants[0].callbackUrl, 'http://127.0.0.1:9/kbank');
    assert.equal(state.json.clock.ticking, false);
  } finally {
    cli.child.kill('SIGINT');
  }
  assert.equal(await cli.exited, 0);
});

test('kbank-sim without --json prints the URL, the credentials and a curl example for people', async () => {
  const cli = startCli(['--partner-id', 'PTR0000042', '--merchant-id', 'KB000000000042', '--real-clock']);
  try {
    await eventually(async () => /Control API/.test(cli.out()) || cli.child.exitCode !== null, 15_000, 50);
    assert.match(cli.out(), /^KBank simulator on http:\/\/127\.0\.0\.1:\d+$/m);
    assert.match(cli.out(), /partner id +PTR0000042/);
    assert.match(cli.out(), /merchant id +KB000000000042/);
    assert.match(cli.out(), /\(ticking;/);
    assert.match(cli.out(), /curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/__sim\/pay/);
  } finally {
    cli.child.kill('SIGTERM');
  }
  assert.equal(await cli.exited, 0);
});

test('kbank-sim refuses a bad flag value with exit 2', async () => {
  const cli = startCli(['--callback-url', 'not-a-url']);
  assert.equal(await cli.exited, 2);
  assert.match(cli.err(), /must be an http\(s\) URL/);
  assert.match(cli.err(), /Usage: npm run -s gateway -- kbank-sim/);
});

// --gateway-env (docs/connectors/kbank-sim.md "Trying the gateway on it"): the gateway's settings
// for this simulator in a .env file only its owner reads; the gateway starts from it and its KBank
// connector works against the simulator; KBank's callbacks go to that gateway's callback route.
test('kbank-sim --gateway-env writes settings the gateway runs the KBank connector on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbank-sim-env-'));
  const file = join(dir, '.env');
  const cli = startCli(['--json', '--gateway-env', file, '--gateway-url', 'http://127.0.0.1:8123/']);
  try {
    await eventually(async () => cli.out().includes('\n') || cli.child.exitCode !== null, 15_000, 50);
    const summary = JSON.parse(cli.out().split('\n')[0]!);
    assert.equal(summary.gatewayEnv, file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const config = loadConfig(readEnvironment({}, file));
    assert.equal(config.processorConnector, 'kbank');
    assert.equal(config.kbank!.baseUrl, summary.url);
    assert.equal(config.kbank!.partnerSecret, summary.partnerSecret);
    assert.deepEqual(configWarnings(config), [], 'TRANSACTION_TTL fits the QR');
    const token = config.kbank!.callbackPathToken;
    assert.equal(summary.callbackUrl, `http://127.0.0.1:8123/processor/kbank/notify/${token}`);
    const connector = connectorFor(config);
    try {
      assert.equal((await connector.queryPayment('QNOSUCHPAYMENT1', Date.now())).state, 'not_found');
    } finally {
      connector.close?.();
    }
  } finally {
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 0);
  }
  // Its own file is replaced by the next run (a new token); anyone else's never.
  const before = readFileSync(file, 'utf8');
  const again = startCli(['--gateway-env', file]);
  try {
    await eventually(async () => /Control API/.test(again.out()) || again.child.exitCode !== null, 15_000, 50);
    assert.match(again.out(), /gateway settings .*\.env \(npm start reads \.env\)/);
    assert.match(again.out(), /callback URL +http:\/\/127\.0\.0\.1:8080\/processor\/kbank\/notify\/<token>$/m);
    assert.notEqual(readFileSync(file, 'utf8'), before);
  } finally {
    again.child.kill('SIGINT');
    await again.exited;
  }
  const foreign = join(dir, 'mine.env');
  writeFileSync(foreign, 'GATEWAY_SECRET_KEY=keep-me\n');
  const refused = startCli(['--gateway-env', foreign]);
  assert.equal(await refused.exited, 2);
  assert.match(refused.err(), /mine\.env exists and was not written by kbank-sim/);
  assert.equal(readFileSync(foreign, 'utf8'), 'GATEWAY_SECRET_KEY=keep-me\n');
  rmSync(dir, { recursive: true, force: true });
});
