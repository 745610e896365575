// Liveness says the process runs; readiness says it can reach its store and, after a write
// failed, write to it again (app/store-health.ts).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.ts';
import { HealthResponseSchema, ReadyResponseSchema } from '../schemas.ts';

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  const tags = ['Health'];
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        summary: 'Liveness: the process runs',
        tags,
        response: { 200: { ...HealthResponseSchema, description: 'The process runs.' } },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'ready',
        summary: 'Readiness: the store is reachable (and writable again after a failed write)',
        tags,
        response: {
          200: { ...ReadyResponseSchema, description: 'Ready for traffic.' },
          503: { ...ReadyResponseSchema, description: 'Not ready: keep it out of the load balancer.' },
        },
      },
    },
    async (_request, reply) => {
      if (await services.storeHealth.ready()) return { status: 'ready' as const, store: services.store.kind };
      return reply.code(503).send({ status: 'unavailable', store: services.store.kind });
    },
  );
}
