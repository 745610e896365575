// Builds the gateway exactly as main.ts does (createServices + buildApp) on a fresh store,
// with a log capture so tests can check what was logged.
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type Services } from '../../src/compose/services.ts';
import { buildApp } from '../../src/http/build-app.ts';
import { httpDepsFrom } from '../../src/compose/http-deps.ts';
import type { Dialect } from '../../src/store/engine.ts';
import { createTestStore, type TestStore } from './test-store.ts';
import { transactionIdOf } from '../../src/domain/keyed-ids.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';

export const TEST_SECRET_KEY_HEX = 'a1'.repeat(32);

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export type TestGateway = {
  app: FastifyInstance;
  services: Services;
  config: Config;
  logs: LogCapture;
  testStore: TestStore;
  /** Mutable clock: tests move time with `clock.now += ms`. */
  clock: { now: number };
  close(): Promise<void>;
};

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    LOG_LEVEL: 'info',
    CREATE_DEMO_MERCHANT: 'false',
    // Most test gateways run no delivery worker, so a hosted-page redirect would always wait the
    // whole bound; the tests of that wait (test/e2e/return-after-notification.test.ts, the
    // browser tests) set it themselves.
    RETURN_WAIT_FOR_NOTIFICATION: '0',
    ...env,
  });
}

export async function startTestGateway(dialect: Dialect, env: Record<string, string> = {}): Promise<TestGateway> {
  const testStore = await createTestStore(dialect);
  const config = testConfig({ DATABASE_URL: testStore.databaseUrl, ...env });
  const logs = new LogCapture();
  const logger = createLogger(config.logLevel, logs);
  const clock = { now: Date.now() };
  const services = createServices(config, testStore.store, config.secretKey!, { now: () => clock.now, logger });
  const app = await buildApp(httpDepsFrom(services), { logger });
  await app.ready();
  return {
    app,
    services,
    config,
    logs,
    testStore,
    clock,
    async close() {
      await app.close();
      await testStore.cleanup();
    },
  };
}

/**
 * The row behind a redirect id as the hosted page finds it: a keyed id by the transaction id it
 * carries once its MAC verifies under the gateway's key, an id of the earlier form as it is.
 */
export function findByRedirectId(
  gw: { services: Services; config: Config },
  redirectId: string,
): Promise<TransactionRecord | undefined> {
  const carried = transactionIdOf(gw.config.secretKey!, 'redirect-id', redirectId);
  return gw.services.transactions.findByRedirectId(redirectId, carried);
}

export type MerchantCredentials = { merchantid: string; password: string; webhook_secret: string };

/** Creates a merchant through the same use case the CLI uses, and makes it visible to the request path. */
export async function addMerchant(
  gw: TestGateway,
  overrides: { id?: string; payoutCurrency?: string; feeRate?: string } = {},
): Promise<MerchantCredentials> {
  const issued = await gw.services.manageMerchants.create({
    name: 'Test Shop',
    payoutCurrency: overrides.payoutCurrency ?? 'THB',
    payoutAccount: '4111111111119012',
    ...(overrides.id !== undefined && { id: overrides.id }),
    ...(overrides.feeRate !== undefined && { feeRate: overrides.feeRate }),
  });
  await gw.services.directory.refresh();
  return issued;
}

const FIXTURES = new URL('../fixtures/', import.meta.url);

/**
 * A request body from test/fixtures (copied from the clients' real requests) with real credentials substituted (raw
 * text, as clients send it).
 */
export function fixture(name: string, creds: { merchantid: string; password: string }): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8')
    .replaceAll('TEST001', creds.merchantid)
    .replaceAll('REPLACE_ME', creds.password);
}

/** A valid initiation body built from the string-amount fixture, with overrides. */
export function initiationBody(
  creds: { merchantid: string; password: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...JSON.parse(fixture('string-amount.json', creds)), ...overrides };
}

export async function post(
  gw: { app: FastifyInstance },
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await gw.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: response.json() as Record<string, any>,
    raw: response.body,
  };
}
