// Runs the gateway: HTTP API, merchant refresh, background workers, graceful shutdown.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { configWarnings, type Config } from './config.ts';
import type { Services } from './compose/services.ts';
import { openServices, startAttentionCount, startDirectory, startMetricsListener } from './compose/start-services.ts';
import type { Store } from './app/ports/store.ts';
import { buildApp } from './http/build-app.ts';
import { httpDepsFrom } from './compose/http-deps.ts';
import { connectorFor } from './connectors/connector-for.ts';
import type { MetricsServer } from './http/metrics-server.ts';
import {
  addAcceptors,
  assertPortFree,
  closeConnectionsWithoutReset,
  connectionsClosed,
  listenSocketCount,
  type Acceptors,
  openConnections,
  REUSE_PORT_SUPPORTED,
  stopAccepting,
} from './http/edge/acceptor-pool.ts';

import type { WorkerFactory } from './app/worker.ts';
import { acquireServeLock, type ServeLock } from './store/sqlite/serve-lock.ts';

/**
 * Connections the kernel may hold for us before accept() (it caps this at net.core.somaxconn).
 * Node's default of 511 made a burst of connects beyond it retry their SYN after 1, 3 and 7
 * seconds, so at 2,048 connections some requests waited seconds before the gateway saw them;
 * accepted, they are answered or shed (MAX_IN_FLIGHT) at once instead.
 */
export const LISTEN_BACKLOG = 4096;

export type { Worker, WorkerFactory } from './app/worker.ts';

/** Shutdown: how long connects under way are accepted, with draining answers held, before the listeners close. */
const ACCEPT_SETTLE_MS = 200;
/** Shutdown: how long a connection may still deliver a request it had sent before it is half-closed. */
const READ_WINDOW_MS = 200;
/** Shutdown: how long a half-closed connection waits for the client to close its side. */
const LINGER_MS = 1000;

export type RunningGateway = {
  app: FastifyInstance;
  /** The extra listeners on the API port (LISTEN_SOCKETS > 1 on Linux; http/edge/acceptor-pool.ts). */
  acceptors: Acceptors | undefined;
  services: Services;
  url: string;
  /** The separate metrics listener's URL when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
};

export type StartOptions = {
  logger: Logger;
  store?: Store;
  now?: () => number;
  workers?: WorkerFactory[];
  /** Printed once when the demo merchant is created (not through the logger: it carries secrets). */
  announce?: (text: string) => void;
};

export async function startGateway(config: Config, options: StartOptions): Promise<RunningGateway> {
  const { logger } = options;
  connectorFor(config); // live mode refuses to start without a live connector
  for (const warning of configWarnings(config)) logger.warn(warning);
  // One `serve` per SQLite file (store/sqlite/serve-lock.ts); a store handed in is its owner's business.
  const lock = options.store ? undefined : acquireServeLock(config.databaseUrl);
  try {
    return await startOnStore(config, options, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function startOnStore(
  config: Config,
  options: StartOptions,
  lock: ServeLock | undefined,
): Promise<RunningGateway> {
  const { logger } = options;
  const services = await openServices(config, options);
  const { store } = services;
  if (config.createDemoMerchant && config.mode === 'sandbox') await ensureDemoMerchant(services, options.announce);
  await startDirectory(services, logger);
  await startAttentionCount(services, logger);

  let draining = false;
  let drainingHold: Promise<void> | undefined;
  const app = await buildApp(httpDepsFrom(services), {
    logger,
    draining: () => draining,
    drainingHold: () => drainingHold,
  });
  const { acceptors, url } = await listenApi(app, config, logger);
  let metricsServer: MetricsServer | undefined;
  try {
    metricsServer = await startMetricsListener(services, config);
  } catch (error) {
    acceptors?.close();
    await app.close();
    throw error;
  }

  const workers = (options.workers ?? []).map((factory) => factory(services, logger));
  for (const worker of workers) worker.start();
  logger.info(
    {
      url,
      metricsUrl: metricsServer?.url,
      mode: config.mode,
      store: store.kind,
      listenSockets: 1 + (acceptors?.accepted().length ?? 0),
    },
    'gateway listening',
  );

  let stopping: Promise<void> | undefined;
  return {
    app,
    acceptors,
    services,
    url,
    metricsUrl: metricsServer?.url,
    stop() {
      stopping ??= (async () => {
        draining = true;
        // No connection is reset from here on: each is half-closed after its last answer and what the
        // client still sends is drained (http/edge/acceptor-pool.ts).
        closeConnectionsWithoutReset(app.server, LINGER_MS);
        services.directory.stop();
        services.openAttention.stop();
        await drainIdleConnections(app, config.shutdownIdleGraceMs);
        // Stop accepting. Closing a listener resets the connections the kernel completed for it and
        // we have not accepted yet, and clients answered 503 reconnect at once: so the draining
        // answers are held while the connects under way are accepted, then the listeners close.
        let release = () => {};
        drainingHold = new Promise<void>((resolve) => (release = resolve));
        await new Promise((resolve) => setTimeout(resolve, ACCEPT_SETTLE_MS));
        stopAccepting([app.server, ...(acceptors?.servers() ?? [])]);
        release();
        drainingHold = undefined;
        // Requests already sent are read and answered 503; in-flight ones finish; then each closes.
        await connectionsClosed(app.server, config.requestTimeoutMs, READ_WINDOW_MS, LINGER_MS);
        await app.close();
        await Promise.allSettled(workers.map((w) => w.stop())); // in-flight deliveries finish
        await metricsServer?.close();
        if (!options.store) await store.close();
        lock?.release();
        logger.info('gateway stopped');
      })();
      return stopping;
    },
  };
}

/** The API port: one listener, or LISTEN_SOCKETS of them sharing it (http/edge/acceptor-pool.ts). */
async function listenApi(
  app: FastifyInstance,
  config: Config,
  logger: Logger,
): Promise<{ acceptors: Acceptors | undefined; url: string }> {
  const listenSockets = REUSE_PORT_SUPPORTED ? listenSocketCount(config.listenSockets) : 1;
  if (REUSE_PORT_SUPPORTED && listenSockets < config.listenSockets)
    logger.warn(
      { requested: config.listenSockets, listenSockets },
      'LISTEN_SOCKETS lowered to 1/8 of the open-file limit',
    );
  const reusePort = listenSockets > 1;
  if (reusePort) await assertPortFree(config.host, config.port);
  // Fastify hands these options to net.Server.listen; its type declaration omits reusePort.
  await app.listen({
    port: config.port,
    host: config.host,
    backlog: LISTEN_BACKLOG,
    ...(reusePort && { reusePort: true }),
  } as { port: number; host: string; backlog: number });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const acceptors = reusePort
    ? await addAcceptors(app.server, {
        host: config.host,
        port,
        backlog: LISTEN_BACKLOG,
        count: listenSockets - 1,
        onError: (error) => logger.warn({ err: error }, 'an extra listener could not bind; serving with fewer'),
      })
    : undefined;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  return { acceptors, url };
}

/**
 * Closing the server at once would destroy idle keep-alive connections, and with them any
 * request a client had just sent on one (it sees a reset for a request the gateway received).
 * So first, for a short grace, every request — on old connections and new — is answered 503
 * with `Connection: close` (and /readyz says unavailable, so a load balancer stops routing
 * here); busy keep-alive clients thus learn to go elsewhere and close cleanly. Only then are
 * the remaining idle connections closed.
 */
async function drainIdleConnections(app: FastifyInstance, graceMs: number): Promise<void> {
  if (graceMs <= 0 || !app.server.listening) return;
  if (openConnections(app.server) === 0) return;
  await new Promise((resolve) => setTimeout(resolve, graceMs));
}

const DEMO_ID = 'demo';

async function ensureDemoMerchant(services: Services, announce: ((text: string) => void) | undefined): Promise<void> {
  if ((await services.merchants.count()) > 0) return;
  try {
    const issued = await services.manageMerchants.create({
      id: DEMO_ID,
      name: 'Demo Shop',
      payoutCurrency: 'THB',
      payoutAccount: '0000001234',
    });
    announce?.(
      [
        '',
        'Sandbox demo merchant created (shown once, store it now):',
        `  merchantid:     ${issued.merchantid}`,
        `  password:       ${issued.password}`,
        `  webhook_secret: ${issued.webhook_secret}`,
        '',
      ].join('\n'),
    );
  } catch {
    // Another instance created it first; its credentials were printed there.
  }
}
