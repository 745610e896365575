// One access-log line per answered request, at info (docs/architecture.md, "Logging"): Fastify's
// own pair of lines ("incoming request" + "request completed") is turned off, so requests that
// Fastify routes (its onResponse hook, fastify-edge.ts) and requests the JSON fast lane takes log
// alike, and a busy gateway writes half as many lines. The `req` serializer (logger.ts) drops the
// query string: the hosted page's ID is a bearer capability.
import type { Logger } from 'pino';

export type AccessLogRequest = { id: string; method: string; url: string; ip: string | undefined };

export function logCompleted(logger: Logger, req: AccessLogRequest, statusCode: number, responseTimeMs: number): void {
  if (!logger.isLevelEnabled('info')) return;
  logger.info({ reqId: req.id, req, res: { statusCode }, responseTime: responseTimeMs }, 'request completed');
}
