// `gateway scb-sim` as a real process (docs/connectors/scb-sim.md "Running it"): --gateway-env
// prints exactly the gateway's SCB settings on stdout (the names config/scb.ts reads), and those
// settings work against the running simulator; confirmations go to that gateway's confirmation
// route under the printed path token; --json prints one object; SIGINT stops it cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../support/gateway-process.ts';
import { startCliServer } from '../../support/cli-server.ts';
import { request } from '../../support/scb-sim-http.ts';

const startCli = (args: string[]) => startCliServer('scb-sim', args);

test('scb-sim --gateway-env: stdout is the SCB settings, and they work against the simulator', async () => {
  const cli = startCli(['--gateway-env', '--gateway-url', 'http://127.0.0.1:8123/', '--ref3-prefix', 'GWY']);
  try {
    await eventually(async () => /Ctrl-C stops/.test(cli.err()) || cli.child.exitCode !== null, 15_000, 50);
    const lines = cli.out().trim().split('\n');
    assert.match(lines[0]!, /^# /);
    const env = Object.fromEntries(lines.slice(1).map((line) => line.split(/=(.*)/s).slice(0, 2)));
    assert.deepEqual(Object.keys(env), [
      'PROCESSOR_CONNECTOR',
      'SCB_BASE_URL',
      'SCB_API_KEY',
      'SCB_API_SECRET',
      'SCB_BILLER_ID',
      'SCB_REF3_PREFIX',
      'SCB_CONFIRM_PATH_TOKEN',
    ]);
    assert.equal(env.PROCESSOR_CONNECTOR, 'scb');
    assert.match(env.SCB_BASE_URL, /^http:\/\/127\.0\.0\.1:\d+\/partners\/sandbox$/);
    assert.match(env.SCB_BILLER_ID, /^\d{15}$/);
    assert.equal(env.SCB_REF3_PREFIX, 'GWY');
    assert.match(env.SCB_CONFIRM_PATH_TOKEN, /^[A-Za-z0-9_-]{32,128}$/);
    // People read the rest on stderr; the token itself is not shown there.
    assert.match(cli.err(), /confirm URL +http:\/\/127\.0\.0\.1:8123\/processor\/scb\/confirm\/<token>$/m);
    assert.ok(!cli.err().includes(env.SCB_CONFIRM_PATH_TOKEN));

    const headers = {
      'content-type': 'application/json',
      resourceOwnerId: env.SCB_API_KEY!,
      requestUId: 'R'.repeat(32),
      'accept-language': 'EN',
    };
    const token = await request(`${env.SCB_BASE_URL}/v1/oauth/token`, {
      headers,
      body: JSON.stringify({ applicationKey: env.SCB_API_KEY, applicationSecret: env.SCB_API_SECRET }),
    });
    assert.equal(token.status, 200, token.text);
    const origin = env.SCB_BASE_URL!.replace('/partners/sandbox', '');
    const state = await request(`${origin}/__sim/state`, { method: 'GET' });
    assert.equal(
      state.json.config.confirmUrl,
      `http://127.0.0.1:8123/processor/scb/confirm/${env.SCB_CONFIRM_PATH_TOKEN}`,
    );
  } finally {
    cli.child.kill('SIGINT');
  }
  assert.equal(await cli.exited, 0);
});

test('scb-sim --json: one object with the base URL and credentials; --confirm-url registered', async () => {
  const cli = startCli(['--json', '--seed', 'cli-test', '--confirm-url', 'http://127.0.0.1:9/scb']);
  try {
    await eventually(async () => cli.out().includes('\n') || cli.child.exitCode !== null, 15_000, 50);
    const summary = JSON.parse(cli.out().split('\n')[0]!);
    assert.equal(summary.baseUrl, `${summary.url}/partners/sandbox`);
    assert.equal(summary.confirmUrl, 'http://127.0.0.1:9/scb');
    for (const key of ['apiKey', 'apiSecret', 'billerId', 'ref3Prefix']) assert.equal(typeof summary[key], 'string');
    assert.match(summary.examplePay, /^curl .*\/__sim\/pay /);
  } finally {
    cli.child.kill('SIGTERM');
  }
  assert.equal(await cli.exited, 0);
});

test('scb-sim refuses bad flags with exit 2', async () => {
  const both = startCli(['--json', '--gateway-env']);
  assert.equal(await both.exited, 2);
  assert.match(both.err(), /choose one/);
  const biller = startCli(['--biller-id', '123']);
  assert.equal(await biller.exited, 2);
  assert.match(biller.err(), /billerId must be 15 digits/);
  assert.match(biller.err(), /Usage: npm run -s gateway -- scb-sim/);
});
