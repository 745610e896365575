// serve | migrate
import { openMigratedStore } from '../../bootstrap.ts';
import { createLogger } from '../../logger.ts';
import { startGateway } from '../../server.ts';
import { defaultWorkers } from '../../workers.ts';
import type { Command } from './context.ts';
import { flags } from './context.ts';

export const serveCommands: Record<string, Command> = {
  serve: {
    summary: 'run the gateway (HTTP API and background workers) until SIGTERM',
    async run(args, ctx) {
      flags(args, {});
      const logger = createLogger(ctx.config.logLevel);
      const gateway = await startGateway(ctx.config, { logger, workers: defaultWorkers, announce: (text) => ctx.io.out(text) });
      if (gateway.metricsUrl) ctx.io.out(`Metrics on ${gateway.metricsUrl}/metrics`);
      ctx.io.out(`Gateway (${ctx.config.mode}) listening on ${gateway.url} — public URL ${ctx.config.publicBaseUrl}`);
      await new Promise<void>((resolve) => {
        let signals = 0;
        const onSignal = (signal: NodeJS.Signals) => {
          signals += 1;
          if (signals > 1) process.exit(1); // a second signal: stop waiting
          logger.info({ signal }, 'shutting down');
          const timer = setTimeout(() => {
            logger.error('shutdown timed out');
            process.exit(1);
          }, ctx.config.shutdownTimeoutMs);
          timer.unref();
          gateway.stop().then(resolve, (error) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          });
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
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
