// Liveness says the process runs; readiness says it can reach its store and, after a write
// failed, write to it again (app/store-health.ts).
import type { FastifyInstance } from 'fastify';
import { HealthResponseSchema, ReadyResponseSchema } from '../schemas.ts';

export type HealthRouteDeps = {
  /** Readiness (app/store-health.ts): the store answers and, after a reported failure, accepts a write. */
  ready: () => Promise<boolean>;
  /** Which store this is ('sqlite' or 'postgres'), shown in the readiness answer. */
  storeKind: string;
};

export function registerHealthRoutes(app: FastifyInstance, deps: HealthRouteDeps): void {
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
      if (await deps.ready()) return { status: 'ready' as const, store: deps.storeKind };
      return reply.code(503).send({ status: 'unavailable', store: deps.storeKind });
    },
  );
}
