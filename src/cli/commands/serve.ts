// serve | deliver | migrate
import type { Logger } from 'pino';
import { openMigratedStore } from '../../bootstrap.ts';
import { startDeliveryProcess } from '../../deliver.ts';
import { createLogger } from '../../logger.ts';
import { startGateway } from '../../server.ts';
import { workersFor } from '../../workers.ts';
import type { Command } from './context.ts';
import { flags } from './context.ts';

/** Waits for SIGTERM or SIGINT, then stops gracefully (a second signal, or SHUTDOWN_TIMEOUT, exits 1). */
function untilSignalled(logger: Logger, shutdownTimeoutMs: number, stop: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) process.exit(1); // a second signal: stop waiting
      logger.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        logger.error('shutdown timed out');
        process.exit(1);
      }, shutdownTimeoutMs);
      timer.unref();
      stop().then(resolve, (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

export const serveCommands: Record<string, Command> = {
  serve: {
    summary: 'run the gateway (HTTP API and background workers) until SIGTERM',
    async run(args, ctx) {
      flags(args, {});
      const logger = createLogger(ctx.config.logLevel);
      const gateway = await startGateway(ctx.config, {
        logger,
        workers: workersFor(ctx.config),
        announce: (text) => ctx.io.out(text),
      });
      // Handlers first: a SIGTERM sent as soon as the line below is read still stops gracefully.
      const stopped = untilSignalled(logger, ctx.config.shutdownTimeoutMs, () => gateway.stop());
      if (gateway.metricsUrl) ctx.io.out(`Metrics on ${gateway.metricsUrl}/metrics`);
      if (!ctx.config.deliveryWorker)
        ctx.io.out('Notifications are not delivered by this process (DELIVERY_WORKER=false): run `deliver` beside it.');
      ctx.io.out(`Gateway (${ctx.config.mode}) listening on ${gateway.url} — public URL ${ctx.config.publicBaseUrl}`);
      await stopped;
      return 0;
    },
  },
  deliver: {
    summary:
      'deliver notifications only, without the HTTP API, until SIGTERM ' +
      '(PostgreSQL; beside `serve` with DELIVERY_WORKER=false)',
    async run(args, ctx) {
      flags(args, {});
      const logger = createLogger(ctx.config.logLevel);
      const delivery = await startDeliveryProcess(ctx.config, { logger });
      const stopped = untilSignalled(logger, ctx.config.shutdownTimeoutMs, () => delivery.stop());
      if (delivery.metricsUrl) ctx.io.out(`Metrics on ${delivery.metricsUrl}/metrics`);
      ctx.io.out(`Delivering notifications (${ctx.config.mode}) as ${delivery.worker.instanceId}`);
      await stopped;
      return 0;
    },
  },
  migrate: {
    summary: 'apply database migrations and exit',
    async run(args, ctx) {
      flags(args, {});
      let applied: string[] = [];
      const store = await openMigratedStore(ctx.config, true, (names) => (applied = names));
      await store.close();
      ctx.io.out(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
      return 0;
    },
  },
};
