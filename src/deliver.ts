// Runs a delivery-only process (`deliver`, PostgreSQL): the notification delivery worker without
// the HTTP API, beside API processes started with DELIVERY_WORKER=false. Delivery then takes no
// time from the API's event loop, and the two scale apart. Every guarantee is the store's, as
// with several `serve` instances: leases per event, SKIP LOCKED claims, LISTEN/NOTIFY wake-ups
// (the API processes NOTIFY after each payment they finalise), and the poll as a fallback.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import type { Services } from './compose/services.ts';
import { openServices, startDirectory, startMetricsListener } from './compose/start-services.ts';
import { DeliveryWorker } from './delivery/delivery-worker.ts';
import type { MetricsServer } from './http/metrics-server.ts';

export type RunningDelivery = {
  services: Services;
  worker: DeliveryWorker;
  /** The metrics listener's URL when METRICS_PORT is set (the delivery counters of this process). */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
};

export async function startDeliveryProcess(
  config: Config,
  options: { logger: Logger; now?: () => number },
): Promise<RunningDelivery> {
  const { logger } = options;
  if (config.databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError([
      '`deliver` needs PostgreSQL: a SQLite database is served by one process, ' +
        'and its `serve` delivers the notifications',
    ]);
  }
  const services = await openServices(config, options);
  const { store } = services;
  // The merchants' webhook secrets sign the notifications; the directory keeps them current.
  await startDirectory(services, logger);
  let metricsServer: MetricsServer | undefined;
  try {
    metricsServer = await startMetricsListener(services, config);
  } catch (error) {
    services.directory.stop();
    await store.close();
    throw error;
  }
  const worker = new DeliveryWorker(services, logger);
  worker.start();
  logger.info(
    { instance: worker.instanceId, metricsUrl: metricsServer?.url, mode: config.mode },
    'delivery worker running',
  );

  let stopping: Promise<void> | undefined;
  return {
    services,
    worker,
    metricsUrl: metricsServer?.url,
    stop() {
      stopping ??= (async () => {
        await worker.stop(); // in-flight sends finish and are recorded; leases go back
        services.directory.stop();
        await metricsServer?.close();
        await store.close();
        logger.info('delivery worker stopped');
      })();
      return stopping;
    },
  };
}
