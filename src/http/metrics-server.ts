// METRICS_PORT: /metrics on a listener of its own (typically bound to a private address), so
// the scrape endpoint need not be reachable where merchants are. Plain node:http: it serves one
// read-only route; anything else is a 404 in the documented error shape (docs/api.md, "Errors").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayMetrics } from '../app/gateway-metrics.ts';
import { GatewayError } from '../domain/errors.ts';
import { initiationError } from '../domain/responses.ts';
import { httpStatusOf } from './edge/error-status.ts';
import { metricsAccessError } from './api/metrics-access.ts';

export type MetricsServer = { url: string; close(): Promise<void> };

function sendError(res: ServerResponse, error: GatewayError): void {
  const body = JSON.stringify(initiationError(error, undefined));
  res.writeHead(httpStatusOf(error), {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export type MetricsServerDeps = {
  metrics: Pick<GatewayMetrics, 'text'>;
  /** METRICS_TOKEN: the bearer token a scraper must send, if set. */
  token: string | undefined;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
};

export async function startMetricsServer(deps: MetricsServerDeps, host: string, port: number): Promise<MetricsServer> {
  const { metrics } = deps;
  const server = createServer(
    { headersTimeout: deps.headersTimeoutMs, requestTimeout: deps.requestTimeoutMs },
    (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics')
        return sendError(
          res,
          new GatewayError('NOT_FOUND', `There is no operation ${req.method} ${path} on the metrics port.`),
        );
      const denied = metricsAccessError(deps.token, req.headers.authorization);
      if (denied) return sendError(res, denied);
      metrics.text().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        },
        () => sendError(res, new GatewayError('INTERNAL_ERROR', 'The metrics could not be collected.')),
      );
    },
  );
  server.keepAliveTimeout = deps.keepAliveTimeoutMs;
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
