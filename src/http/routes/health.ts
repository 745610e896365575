// Liveness says the process runs; readiness says it can reach its store and, after a write
// failed, write to it again (app/store-health.ts).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.ts';

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (await services.storeHealth.ready()) return { status: 'ready', store: services.store.dialect };
    return reply.code(503).send({ status: 'unavailable', store: services.store.dialect });
  });
}
