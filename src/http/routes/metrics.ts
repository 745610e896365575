// GET /metrics in the Prometheus text format: request counts by route and status, and
// gauges read from the store (transactions by state, notifications by delivery state).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.ts';

const VERSION = '0.1.0';

function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function registerMetrics(app: FastifyInstance, services: Services): void {
  const requests = new Map<string, number>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `route="${label(route)}",method="${request.method}",status="${reply.statusCode}"`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
  });

  app.get('/metrics', async (_request, reply) => {
    const { db } = services.store;
    const [transactions, outbox] = await Promise.all([
      db.selectFrom('transactions').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute(),
      db.selectFrom('outbox_events').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute(),
    ]);
    const lines = [
      '# HELP gateway_build_info Gateway version, mode and store.',
      '# TYPE gateway_build_info gauge',
      `gateway_build_info{version="${VERSION}",mode="${services.config.mode}",store="${services.store.dialect}"} 1`,
      '# HELP gateway_http_requests_total HTTP requests answered, by route, method and status.',
      '# TYPE gateway_http_requests_total counter',
      ...[...requests].map(([k, v]) => `gateway_http_requests_total{${k}} ${v}`),
      '# HELP gateway_transactions Transactions in the store, by state.',
      '# TYPE gateway_transactions gauge',
      ...transactions.map((r) => `gateway_transactions{status="${r.status}"} ${String(r.n)}`),
      '# HELP gateway_notifications Result notifications, by delivery state.',
      '# TYPE gateway_notifications gauge',
      ...outbox.map((r) => `gateway_notifications{status="${r.status}"} ${String(r.n)}`),
    ];
    return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });
}
