// The start-up steps every serving process shares (`serve` in server.ts, `deliver` in deliver.ts):
// the secret key, the migrated store, the services over it, the merchant directory loaded and
// kept current, the open needs-attention count (serve), and the optional /metrics listener.
import type { Logger } from 'pino';
import type { Store } from '../app/ports/store.ts';
import type { Services } from '../app/services.ts';
import { openMigratedStore, resolveSecretKey } from '../bootstrap.ts';
import type { Config } from '../config.ts';
import { startMetricsServer, type MetricsServer } from '../http/metrics-server.ts';
import { metricsServerDepsFrom } from './metrics-server-deps.ts';
import { createServices } from './services.ts';

export type ServiceOptions = { logger: Logger; store?: Store | undefined; now?: (() => number) | undefined };

/** The services over the given store, or over the configured one opened (and migrated) here. */
export async function openServices(config: Config, options: ServiceOptions): Promise<Services> {
  const key = resolveSecretKey(config);
  const store = options.store ?? (await openMigratedStore(config));
  return createServices(config, store, key, { logger: options.logger, ...(options.now && { now: options.now }) });
}

/**
 * Loads every merchant, then keeps the copy current (webhook secrets sign notifications, credentials check
 * requests).
 */
export async function startDirectory(services: Services, logger: Logger): Promise<void> {
  await services.directory.refresh();
  services.directory.start((error) => logger.warn({ err: error }, 'merchant refresh failed'));
}

/**
 * Reads the open needs-attention count, keeps it current in the background and exports it as
 * `gateway_attention_open` (app/open-attention.ts). A failed read is logged and leaves the last
 * count: the metric and the console's menu never wait on the store.
 */
export async function startAttentionCount(services: Services, logger: Logger): Promise<void> {
  const onError = (error: unknown) => logger.warn({ err: error }, 'reading the open attention count failed');
  await services.openAttention.refresh().catch(onError);
  services.openAttention.start(onError);
  services.metrics.trackAttentionOpen(() => services.openAttention.value());
}

/** /metrics on its own listener when METRICS_PORT is set; undefined otherwise. */
export async function startMetricsListener(services: Services, config: Config): Promise<MetricsServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  return startMetricsServer(metricsServerDepsFrom(services), config.metricsHost, config.metricsPort);
}
