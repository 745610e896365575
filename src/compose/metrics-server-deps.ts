// What the separate /metrics listener (METRICS_PORT) needs, as values (http/metrics-server.ts).
import type { Services } from '../app/services.ts';
import type { MetricsServerDeps } from '../http/metrics-server.ts';

export function metricsServerDepsFrom(services: Services): MetricsServerDeps {
  const { config, metrics } = services;
  return {
    metrics,
    token: config.metricsToken,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  };
}
