// PROCESSOR_CONNECTOR and the KBANK_* settings (config/kbank.ts, docs/connectors/kbank.md
// "Settings"): every missing or bad key named in the one configuration error, plain http only to
// a loopback host, KBank production only with a client certificate, and live mode only with a
// connector that moves money.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, configWarnings, loadConfig } from '../../../src/config.ts';
import { connectorFor } from '../../../src/connectors/connector-for.ts';

const KBANK = {
  PROCESSOR_CONNECTOR: 'kbank',
  KBANK_BASE_URL: 'https://openapi-sandbox.kasikornbank.com/',
  KBANK_CONSUMER_ID: 'consumer',
  KBANK_CONSUMER_SECRET: 'consumer-secret',
  KBANK_PARTNER_ID: 'PTR1051673',
  KBANK_PARTNER_SECRET: 'd4bded59200547bc85903574a293831b',
  KBANK_MERCHANT_ID: 'KB102057149704',
  KBANK_CALLBACK_PATH_TOKEN: 'a'.repeat(40),
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('KBank settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbank-config-'));
  const cert = join(dir, 'client.crt');
  const key = join(dir, 'client.key');
  writeFileSync(cert, 'certificate');
  writeFileSync(key, 'key');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the sandbox connector by default, with no KBank settings', () => {
    const config = loadConfig({});
    assert.equal(config.processorConnector, 'sandbox');
    assert.equal(config.kbank, undefined);
  });

  test('PROCESSOR_CONNECTOR=kbank: every setting with its default', () => {
    const { kbank } = loadConfig(KBANK);
    assert.deepEqual(kbank, {
      baseUrl: 'https://openapi-sandbox.kasikornbank.com',
      consumerId: 'consumer',
      consumerSecret: 'consumer-secret',
      partnerId: 'PTR1051673',
      partnerSecret: 'd4bded59200547bc85903574a293831b',
      merchantId: 'KB102057149704',
      terminalId: null,
      tlsCertFile: null,
      tlsKeyFile: null,
      testMode: false,
      callbackPathToken: 'a'.repeat(40),
      callbackAllowCidrs: [],
      voidCutoffMinute: 21 * 60 + 30,
      qrTtlMs: 600_000,
      timeoutMs: 10_000,
    });
    const set = loadConfig({
      ...KBANK,
      KBANK_TERMINAL_ID: 'T0000001',
      KBANK_TEST_MODE: 'true',
      KBANK_CALLBACK_ALLOW_CIDRS: '203.0.113.0/24, 2001:db8::/32,198.51.100.7',
      KBANK_VOID_CUTOFF: '20:45',
      KBANK_QR_TTL: '5m',
      KBANK_TIMEOUT: '3s',
    }).kbank!;
    assert.equal(set.terminalId, 'T0000001');
    assert.equal(set.testMode, true);
    assert.deepEqual(set.callbackAllowCidrs, ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7']);
    assert.equal(set.voidCutoffMinute, 20 * 60 + 45);
    assert.equal(set.qrTtlMs, 300_000);
    assert.equal(set.timeoutMs, 3_000);
  });

  test('PROCESSOR_CONNECTOR=kbank without its settings names each missing one, in one error', () => {
    assert.deepEqual(problemsOf({ PROCESSOR_CONNECTOR: 'kbank' }), [
      'KBANK_BASE_URL is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_CONSUMER_ID is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_CONSUMER_SECRET is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_PARTNER_ID is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_PARTNER_SECRET is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_MERCHANT_ID is required with PROCESSOR_CONNECTOR=kbank',
      'KBANK_CALLBACK_PATH_TOKEN is required with PROCESSOR_CONNECTOR=kbank',
    ]);
    for (const key of Object.keys(KBANK).filter((k) => k !== 'PROCESSOR_CONNECTOR')) {
      const { [key]: _left, ...rest } = KBANK as Record<string, string>;
      assert.deepEqual(problemsOf(rest), [`${key} is required with PROCESSOR_CONNECTOR=kbank`], key);
    }
    assert.deepEqual(problemsOf({ PROCESSOR_CONNECTOR: 'bbl' }), [
      'PROCESSOR_CONNECTOR="bbl" must be one of sandbox, kbank, scb',
    ]);
  });

  test('the new keys are reported after every other key, with them, in one error', () => {
    const problems = problemsOf({ ...KBANK, PORT: 'eighty', KBANK_VOID_CUTOFF: '9pm', KBANK_QR_TTL: '15m' });
    assert.equal(problems.length, 3);
    assert.match(problems[0]!, /^PORT=/);
    assert.match(problems[1]!, /^KBANK_VOID_CUTOFF="9pm" must be a time of day HH:MM/);
    assert.match(problems[2]!, /^KBANK_QR_TTL="15m" must be a duration .* 600000 ms/);
  });

  test('plain http only to a loopback host (the local simulator)', () => {
    for (const url of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.1.2.3'])
      assert.deepEqual(problemsOf({ ...KBANK, KBANK_BASE_URL: url }), [], url);
    for (const url of ['http://10.0.0.5:8787', 'http://kbank.internal', 'http://openapi-sandbox.kasikornbank.com'])
      assert.match(
        problemsOf({ ...KBANK, KBANK_BASE_URL: url })[0] ?? '',
        /plain http is only for a loopback host/,
        url,
      );
    for (const url of ['openapi.kasikornbank.com', 'ftp://127.0.0.1', 'https://user:pw@kbank.example', 'https://x?y=1'])
      assert.match(problemsOf({ ...KBANK, KBANK_BASE_URL: url })[0] ?? '', /^KBANK_BASE_URL=/, url);
  });

  test('KBank production demands the client certificate and key, readable', () => {
    const production = { ...KBANK, KBANK_BASE_URL: 'https://openapi.kasikornbank.com' };
    assert.match(problemsOf(production)[0] ?? '', /two-way TLS: set KBANK_TLS_CERT and KBANK_TLS_KEY/);
    assert.match(
      problemsOf({ ...production, KBANK_TLS_CERT: cert }).join('\n'),
      /KBANK_TLS_CERT and KBANK_TLS_KEY are set together/,
    );
    assert.match(
      problemsOf({ ...production, KBANK_TLS_CERT: cert, KBANK_TLS_KEY: join(dir, 'missing.key') }).join('\n'),
      /KBANK_TLS_KEY=".*missing\.key" is not a readable file/,
    );
    const live = { GATEWAY_MODE: 'live', GATEWAY_SECRET_KEY: 'b2'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example' };
    const config = loadConfig({ ...production, ...live, KBANK_TLS_CERT: cert, KBANK_TLS_KEY: key });
    assert.equal(config.kbank!.tlsCertFile, cert);
    assert.match(
      problemsOf({ ...production, KBANK_TLS_CERT: cert, KBANK_TLS_KEY: key, KBANK_TEST_MODE: 'true' }).join('\n'),
      /KBANK_TEST_MODE=true .* not for production/,
    );
  });

  test('sandbox mode never runs on KBank production: it completes payments without asking the bank', () => {
    const production = { ...KBANK, KBANK_BASE_URL: 'https://openapi.kasikornbank.com' };
    const problems = problemsOf({ ...production, KBANK_TLS_CERT: cert, KBANK_TLS_KEY: key });
    assert.deepEqual(problems, [
      'KBANK_BASE_URL is KBank production, where QR payments move real money: set GATEWAY_MODE=live ' +
        '(sandbox mode completes payments without asking the bank)',
    ]);
    // KBank's sandbox and kbank-sim are fine in sandbox mode: no real money there.
    assert.deepEqual(problemsOf(KBANK), []);
    assert.deepEqual(problemsOf({ ...KBANK, KBANK_BASE_URL: 'http://127.0.0.1:8787' }), []);
  });

  test('bad values are named, and secrets are not shown', () => {
    const problems = problemsOf({
      ...KBANK,
      KBANK_PARTNER_ID: 'PTR10516730',
      KBANK_MERCHANT_ID: 'KB1020571497040',
      KBANK_TERMINAL_ID: 'T00000001',
      KBANK_TEST_MODE: 'maybe',
      KBANK_CALLBACK_PATH_TOKEN: 'short-secret-token',
      KBANK_CALLBACK_ALLOW_CIDRS: '10.0.0.0/8,10,not-an-address,10.0.0.0/33',
      KBANK_VOID_CUTOFF: '24:00',
      KBANK_TIMEOUT: 'forever',
    });
    assert.deepEqual(
      problems.map((p) => p.split(/[=" ]/)[0]),
      [
        'KBANK_PARTNER_ID',
        'KBANK_MERCHANT_ID',
        'KBANK_TERMINAL_ID',
        'KBANK_TEST_MODE',
        'KBANK_CALLBACK_PATH_TOKEN',
        'KBANK_CALLBACK_ALLOW_CIDRS',
        'KBANK_VOID_CUTOFF',
        'KBANK_TIMEOUT',
      ],
    );
    assert.match(problems.join('\n'), /not: 10, not-an-address, 10\.0\.0\.0\/33/);
    assert.doesNotMatch(problems.join('\n'), /short-secret-token/);
  });

  test('KBANK_* are checked even while the sandbox connector runs, but none is demanded', () => {
    assert.deepEqual(problemsOf({ KBANK_VOID_CUTOFF: 'late' }).length, 1);
    assert.deepEqual(problemsOf({ KBANK_CONSUMER_ID: 'x' }), []);
  });

  test('a warning when a payment outlives its KBank QR', () => {
    assert.match(
      configWarnings(loadConfig(KBANK))[0] ?? '',
      /TRANSACTION_TTL \(900 s\) is longer than KBANK_QR_TTL \(600 s\)/,
    );
    assert.deepEqual(configWarnings(loadConfig({ ...KBANK, TRANSACTION_TTL: '10m' })), []);
    assert.deepEqual(configWarnings(loadConfig({ ...KBANK, TRANSACTION_TTL: '6m', KBANK_QR_TTL: '5m' })).length, 1);
    assert.deepEqual(configWarnings(loadConfig({})), [], 'nothing to say for the sandbox');
  });

  test('live mode needs a connector that moves money: the sandbox is refused, naming why; KBank is taken', () => {
    const live = { GATEWAY_MODE: 'live', GATEWAY_SECRET_KEY: 'b2'.repeat(32), PUBLIC_BASE_URL: 'https://pay.example' };
    assert.throws(
      () => connectorFor(loadConfig(live)),
      new RegExp(
        'GATEWAY_MODE=live needs a live processor connector, and PROCESSOR_CONNECTOR=sandbox moves no money\\. ' +
          'Set PROCESSOR_CONNECTOR=kbank',
      ),
    );
    const connector = connectorFor(loadConfig({ ...live, ...KBANK }));
    assert.equal(connector.name, 'kbank');
    assert.deepEqual(connector.capabilities, {
      live: true,
      qr: 'processor',
      cancel: true,
      refunds: 'void',
      notifications: true,
    });
    assert.equal(connectorFor(loadConfig({})).name, 'sandbox');
  });
});
