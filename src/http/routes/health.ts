// Liveness says the process runs; readiness says it can reach its store.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.ts';

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await services.store.ping();
      return { status: 'ready', store: services.store.dialect };
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: services.store.dialect });
    }
  });
}
