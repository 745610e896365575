// One access-log line per answered request, at info: Fastify's own pair of lines ("incoming
// request" + "request completed") is turned off, so requests that Fastify routes and requests
// the JSON fast lane takes log alike, and a busy gateway writes half as many lines. The `req`
// serializer (logger.ts) drops the query string: the hosted page's ID is a bearer capability.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export type AccessLogRequest = { id: string; method: string; url: string; ip: string | undefined };

export function logRequestCompleted(
  logger: Logger,
  req: AccessLogRequest,
  statusCode: number,
  responseTimeMs: number,
): void {
  if (!logger.isLevelEnabled('info')) return;
  logger.info({ reqId: req.id, req, res: { statusCode }, responseTime: responseTimeMs }, 'request completed');
}

export function registerAccessLog(app: FastifyInstance, logger: Logger): void {
  app.addHook('onResponse', (request, reply, done) => {
    logRequestCompleted(
      logger,
      { id: request.id, method: request.method, url: request.url, ip: request.ip },
      reply.statusCode,
      reply.elapsedTime,
    );
    done();
  });
}
