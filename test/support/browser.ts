// Browser-test plumbing: Debian's Chromium through playwright-core (never a downloaded
// browser), a really listening gateway whose PUBLIC_BASE_URL is its own address, and a
// tiny merchant site on 127.0.0.1 that records where customers land.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { createConsoleServices } from '../../src/app/console/console-services.ts';
import { startGateway, type RunningGateway } from '../../src/server.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestStore, type TestStore } from './test-store.ts';
import type { Dialect } from '../../src/store/engine.ts';
import type { WorkerFactory } from '../../src/app/worker.ts';
import { LogCapture, testConfig } from './test-gateway.ts';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Where the browser tests put their screenshots: docs/images/ with UPDATE_SCREENSHOTS=1 (for the
 * docs, and for a human to look at); otherwise a temp directory, so an ordinary test run leaves
 * the tracked images (and the work tree) alone. Created on first use.
 */
export function screenshotsDir(): URL {
  const dir =
    process.env.UPDATE_SCREENSHOTS === '1'
      ? new URL('../../docs/images/', import.meta.url)
      : pathToFileURL(`${mkdtempSync(join(tmpdir(), 'gw-shots-'))}/`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The shop the browser tests pay: a merchant named as in the docs' screenshots, known to every instance. */
export async function addShop(gw: ListeningGateway): Promise<{ merchantid: string; password: string }> {
  const services = gw.gateway.services;
  const creds = await services.manageMerchants.create({
    name: 'Siam Coffee Roasters',
    payoutCurrency: 'THB',
    payoutAccount: '4111111111119012',
  });
  await services.directory.refresh();
  return creds;
}

/** Why the browser tests cannot run here, or false. In CI a missing browser is a failure, not a skip. */
export function browserSkipReason(): string | false {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.CI === 'true')
    throw new Error(
      `CI=true but ${CHROMIUM} is missing: ` +
        `install Debian's chromium (apt-get install -y chromium) so the browser tests run.`,
    );
  return `${CHROMIUM} is missing; install Debian's chromium (apt-get install -y chromium) to run the browser tests`;
}

export type Browser = { context: BrowserContext; close(): Promise<void> };

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type MerchantSite = { url: string; landings: URL[]; close(): Promise<void> };

/** The merchant's return page: answers every GET with a small page and remembers the URL. */
export async function startMerchantSite(): Promise<MerchantSite> {
  const landings: URL[] = [];
  const server: Server = createServer((req, res) => {
    landings.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Merchant</title><h1>Thank you for your order</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    landings,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts a payment on a listening gateway as the shop's server would (POST /transaction/s2s over
 * HTTP) and answers its JSON, asserted to be a started payment. The body is the docs' screenshot
 * order (Malee Srisuk's SCB account, 1,000.00 THB, two bags of coffee beans) unless overridden;
 * `returnUrl` and `serverUrl` point at the test's own servers.
 */
export async function initiateOn(
  gw: ListeningGateway,
  creds: { merchantid: string; password: string },
  fields: { trackid: string; returnUrl: string; serverUrl: string } & Record<string, unknown>,
): Promise<Record<string, string>> {
  const response = await fetch(`${gw.gateway.url}/transaction/s2s`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      merchantid: creds.merchantid,
      password: creds.password,
      payment_method: { type: 'THAI_DEBIT' },
      bill_currencycode: 'THB',
      bill_amount: '1000.00',
      bill_country: 'TH',
      bill_customerip: '203.0.113.7',
      bill_email: 'buyer@example.com',
      payer_account_no: '1234569012',
      payer_account_name: 'Malee Srisuk',
      payer_bank_code: 'SCB',
      productdesc: 'Order #187 · 2 bags of coffee beans',
      ...fields,
    }),
  });
  const json = (await response.json()) as Record<string, string>;
  assert.equal(json.responsecode, '9', JSON.stringify(json));
  return json;
}

export type ListeningGateway = {
  gateway: RunningGateway;
  testStore: TestStore;
  clock: { now: number };
  close(): Promise<void>;
};

/**
 * A gateway listening on 127.0.0.1 whose PUBLIC_BASE_URL is its real address, so the
 * redirectUrl it hands out is one a browser can open. The port is found first (the URL must
 * be configured before listening); if another test grabs it meanwhile, try again.
 */
export async function startListeningGateway(
  env: Record<string, string> = {},
  options: { dialect?: Dialect; workers?: WorkerFactory[] } = {},
): Promise<ListeningGateway> {
  const testStore = await createTestStore(options.dialect ?? 'sqlite');
  const clock = { now: Date.now() };
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const config = testConfig({
      DATABASE_URL: testStore.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      ...env,
    });
    try {
      const gateway = await startGateway(config, {
        logger: createLogger(config.logLevel, new LogCapture()),
        store: testStore.store,
        now: () => clock.now,
        ...(options.workers && { workers: options.workers }),
      });
      return {
        gateway,
        testStore,
        clock,
        async close() {
          await gateway.stop();
          await testStore.cleanup();
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt >= 5) {
        await testStore.cleanup();
        throw error;
      }
    }
  }
}

export type FailingEndpoint = { url: string; close(): Promise<void> };

/** A merchant endpoint that answers every request `status` with `body`: a shop whose server is down. */
export async function startFailingEndpoint(status: number, body: string): Promise<FailingEndpoint> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The console tests' cast on `gw`: operator `somchai` (password `operatorPassword`, no second
 * factor) and the shop Siam Coffee Roasters under `shopId` (fee 1.75 %); the console's services
 * for anything more.
 */
export async function addConsoleCast(gw: ListeningGateway, shopId: string, operatorPassword: string) {
  const { services } = gw.gateway;
  const consoleServices = createConsoleServices(services.config, services.store, services.key, services.now);
  await consoleServices.accounts.createOperator({ username: 'somchai', password: operatorPassword, totp: false });
  const shop = await services.manageMerchants.create({
    id: shopId,
    name: 'Siam Coffee Roasters',
    payoutCurrency: 'THB',
    payoutAccount: '4111111111119012',
    feeRate: '0.0175',
  });
  return { shop, consoleServices };
}
