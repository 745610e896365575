// GET /metrics in the Prometheus text format (app/gateway-metrics.ts says what is in it).
// On the API port unless METRICS_PORT moves it to its own listener (http/metrics-server.ts);
// METRICS_TOKEN protects it on either. The per-route counters are counted by the HTTP edge
// (edge/pipeline.ts), for Fastify's answers and the JSON fast lane's alike.
import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from '../../app/gateway-metrics.ts';
import { metricsAccessError } from './metrics-access.ts';

export type MetricsRouteDeps = {
  metrics: Pick<GatewayMetrics, 'collectProcessMetrics' | 'text'>;
  /** False when METRICS_PORT serves /metrics on a listener of its own. */
  onApiPort: boolean;
  /** METRICS_TOKEN: the bearer token a scraper must send, if set. */
  token: string | undefined;
};

export function registerMetrics(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const { metrics } = deps;
  metrics.collectProcessMetrics();
  if (!deps.onApiPort) return;
  app.get('/metrics', async (request, reply) => {
    const denied = metricsAccessError(deps.token, request.headers.authorization);
    if (denied) throw denied;
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
}
