// GET /metrics in the Prometheus text format (app/gateway-metrics.ts says what is in it).
// On the API port unless METRICS_PORT moves it to its own listener (http/metrics-server.ts);
// METRICS_TOKEN protects it on either.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.ts';
import { metricsAccessError } from '../metrics-access.ts';

export function registerMetrics(app: FastifyInstance, services: Services): void {
  const { metrics, config } = services;
  metrics.collectProcessMetrics();
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: unmatched paths share one label, so cardinality stays bounded.
    metrics.requestAnswered(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  if (config.metricsPort !== undefined) return;
  app.get('/metrics', async (request, reply) => {
    const denied = metricsAccessError(config.metricsToken, request.headers.authorization);
    if (denied) throw denied;
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
}
