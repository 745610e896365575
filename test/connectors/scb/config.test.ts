// PROCESSOR_CONNECTOR=scb and the SCB_* settings (config/scb.ts, docs/connectors/scb.md "Settings"):
// every missing or bad key named in the one configuration error, secrets never shown, plain http
// only to a loopback host, SCB production only in live mode, the TTL warning in api mode, and the
// connector live mode takes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, configWarnings, loadConfig } from '../../../src/config.ts';
import { connectorFor } from '../../../src/connectors/connector-for.ts';

const SCB = {
  PROCESSOR_CONNECTOR: 'scb',
  SCB_BASE_URL: 'https://api-sandbox.partners.scb/partners/sandbox/',
  SCB_API_KEY: 'l7a1b2c3d4e5f6',
  SCB_API_SECRET: 'scb-app-secret-value',
  SCB_BILLER_ID: '123456789012345',
  SCB_REF3_PREFIX: 'ABC',
  SCB_CONFIRM_PATH_TOKEN: 'c'.repeat(40),
};
const LIVE = { GATEWAY_MODE: 'live', GATEWAY_SECRET_KEY: 'b2'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('SCB settings', () => {
  test('PROCESSOR_CONNECTOR=scb: every setting with its default', () => {
    const { scb, kbank } = loadConfig(SCB);
    assert.equal(kbank, undefined);
    assert.deepEqual(scb, {
      baseUrl: 'https://api-sandbox.partners.scb/partners/sandbox',
      apiKey: 'l7a1b2c3d4e5f6',
      apiSecret: 'scb-app-secret-value',
      billerId: '123456789012345',
      ref3Prefix: 'ABC',
      qrMode: 'api',
      qrTtlMs: 900_000,
      timeoutMs: 10_000,
      confirmPathToken: 'c'.repeat(40),
      confirmAllowCidrs: [],
    });
    const set = loadConfig({
      ...SCB,
      SCB_QR: 'local',
      SCB_QR_TTL: '5m',
      SCB_TIMEOUT: '3s',
      SCB_CONFIRM_ALLOW_CIDRS: '203.0.113.0/24, 2001:db8::/32',
    }).scb!;
    assert.deepEqual(
      [set.qrMode, set.qrTtlMs, set.timeoutMs, set.confirmAllowCidrs],
      ['local', 300_000, 3_000, ['203.0.113.0/24', '2001:db8::/32']],
    );
    assert.equal(loadConfig({}).scb, undefined, 'the sandbox connector has none');
  });

  test('PROCESSOR_CONNECTOR=scb without its settings names each missing one, in one error', () => {
    assert.deepEqual(problemsOf({ PROCESSOR_CONNECTOR: 'scb' }), [
      'SCB_BASE_URL is required with PROCESSOR_CONNECTOR=scb',
      'SCB_API_KEY is required with PROCESSOR_CONNECTOR=scb',
      'SCB_API_SECRET is required with PROCESSOR_CONNECTOR=scb',
      'SCB_BILLER_ID is required with PROCESSOR_CONNECTOR=scb',
      'SCB_REF3_PREFIX is required with PROCESSOR_CONNECTOR=scb',
      'SCB_CONFIRM_PATH_TOKEN is required with PROCESSOR_CONNECTOR=scb',
    ]);
    for (const key of Object.keys(SCB).filter((k) => k !== 'PROCESSOR_CONNECTOR')) {
      const { [key]: _left, ...rest } = SCB as Record<string, string>;
      assert.deepEqual(problemsOf(rest), [`${key} is required with PROCESSOR_CONNECTOR=scb`], key);
    }
    // The biller id is ours in both QR modes: the local payload carries it, and every answer must name it.
    const { SCB_BILLER_ID: _biller, ...local } = { ...SCB, SCB_QR: 'local' };
    assert.deepEqual(problemsOf(local), ['SCB_BILLER_ID is required with PROCESSOR_CONNECTOR=scb']);
  });

  test('bad values are named, after the other keys, and secrets are not shown', () => {
    const problems = problemsOf({
      ...SCB,
      PORT: 'eighty',
      SCB_BILLER_ID: '12345',
      SCB_REF3_PREFIX: 'ab1',
      SCB_QR: 'both',
      SCB_QR_TTL: '2d',
      SCB_TIMEOUT: 'forever',
      SCB_CONFIRM_PATH_TOKEN: 'short-secret-token',
      SCB_CONFIRM_ALLOW_CIDRS: '10.0.0.0/8,10,not-an-address',
    });
    assert.deepEqual(
      problems.map((p) => p.split(/[=" ]/)[0]),
      [
        'PORT',
        'SCB_BILLER_ID',
        'SCB_REF3_PREFIX',
        'SCB_QR',
        'SCB_QR_TTL',
        'SCB_TIMEOUT',
        'SCB_CONFIRM_PATH_TOKEN',
        'SCB_CONFIRM_ALLOW_CIDRS',
      ],
    );
    assert.match(problems.join('\n'), /SCB_BILLER_ID="12345" must be 15 digits/);
    assert.match(problems.join('\n'), /SCB_QR="both" must be one of api, local/);
    assert.match(problems.join('\n'), /not: 10, not-an-address/);
    assert.doesNotMatch(problems.join('\n'), /short-secret-token/);
  });

  test('SCB_* are checked even while another connector runs, but none is demanded', () => {
    assert.equal(problemsOf({ SCB_QR_TTL: 'soon' }).length, 1);
    assert.deepEqual(problemsOf({ SCB_API_KEY: 'x' }), []);
  });

  test('plain http only to a loopback host (the local simulator), and a base path is kept', () => {
    const local = loadConfig({ ...SCB, SCB_BASE_URL: 'http://127.0.0.1:8788/partners/sandbox' });
    assert.equal(local.scb!.baseUrl, 'http://127.0.0.1:8788/partners/sandbox');
    for (const url of ['http://10.0.0.5:8788/partners', 'http://api.partners.scb/partners'])
      assert.match(problemsOf({ ...SCB, SCB_BASE_URL: url })[0] ?? '', /plain http is only for a loopback host/, url);
    for (const url of ['api.partners.scb', 'ftp://127.0.0.1', 'https://user:pw@scb.example', 'https://x?y=1'])
      assert.match(problemsOf({ ...SCB, SCB_BASE_URL: url })[0] ?? '', /^SCB_BASE_URL=/, url);
  });

  test('sandbox mode never runs on SCB production: it completes payments without asking the bank', () => {
    const production = { ...SCB, SCB_BASE_URL: 'https://api.partners.scb/partners' };
    assert.deepEqual(problemsOf(production), [
      'SCB_BASE_URL is SCB production, where QR payments move real money: set GATEWAY_MODE=live ' +
        '(sandbox mode completes payments without asking the bank)',
    ]);
    assert.equal(loadConfig({ ...production, ...LIVE }).scb!.baseUrl, 'https://api.partners.scb/partners');
  });

  test("a warning when a payment outlives its SCB QR (api mode: the bank's expiry), none in local mode", () => {
    assert.deepEqual(configWarnings(loadConfig(SCB)), [], '15m each by default');
    assert.match(
      configWarnings(loadConfig({ ...SCB, SCB_QR_TTL: '10m' }))[0] ?? '',
      /TRANSACTION_TTL \(900 s\) is longer than SCB_QR_TTL \(600 s\)/,
    );
    assert.deepEqual(configWarnings(loadConfig({ ...SCB, SCB_QR_TTL: '10m', SCB_QR: 'local' })), []);
  });

  test('live mode takes the SCB connector, with its capabilities; the refusal of the sandbox names scb', () => {
    const connector = connectorFor(loadConfig({ ...LIVE, ...SCB }));
    try {
      assert.equal(connector.name, 'scb');
      assert.deepEqual(connector.capabilities, {
        live: true,
        qr: 'processor',
        cancel: false,
        refunds: 'none',
        notifications: true,
      });
    } finally {
      connector.close?.();
    }
    assert.throws(() => connectorFor(loadConfig(LIVE)), /PROCESSOR_CONNECTOR=scb with the SCB_\* settings/);
  });
});
