// Fastify and the node:http server under it: timeouts, limits, the JSON fast lane in front of
// Fastify's router, and the transport faults answered in the documented error shape
// (transport-errors.ts). Routes and the edge pipeline's hooks come later (build-app.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { TrustProxy } from '../../config.ts';
import { limitConnections } from './acceptor-pool.ts';
import { newRequestId } from './pipeline.ts';
import { registerJsonParser } from './request-body.ts';
import { answerClientError, answerFrameworkError } from './transport-errors.ts';

/** The HTTP server's settings (docs/architecture.md, "Bounded work at the HTTP edge"). */
export type ServerSettings = {
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  trustProxy: TrustProxy;
  maxConnections: number;
};

/** Takes a request and returns true, or returns false (having touched nothing) for Fastify to route it. */
export type RequestTaker = (request: IncomingMessage, response: ServerResponse) => boolean;

/** `fastLane` is asked first for every request; it can be set once the routes exist (until then it takes none). */
export function createFastify(settings: ServerSettings, logger: Logger, fastLane: RequestTaker): FastifyInstance {
  const httpOptions = {
    requireHostHeader: false, // checked in onRequest (fastify-edge.ts), to answer in the documented shape
    headersTimeout: settings.headersTimeoutMs,
    // How often Node checks the header/request timeouts (its default, 30 s, would let a
    // slow client keep its socket up to 30 s past the limit).
    connectionsCheckingInterval: Math.min(1000, settings.headersTimeoutMs),
  };
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One access-log line per request (access-log.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // The server Fastify would build, with the JSON fast lane in front of Fastify's router.
    serverFactory: (handler) => {
      const server = createServer(httpOptions, (request, response) => {
        if (!fastLane(request, response)) handler(request, response);
      });
      server.keepAliveTimeout = settings.keepAliveTimeoutMs;
      server.requestTimeout = settings.requestTimeoutMs;
      return server;
    },
    bodyLimit: settings.bodyLimitBytes,
    trustProxy: settings.trustProxy,
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    genReqId: newRequestId,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  limitConnections(app.server, settings.maxConnections);
  registerJsonParser(app);
  // Body schemas document requests (OpenAPI); the domain validates them itself so errors come
  // in the documented shape and name the field, hence no Fastify body validation.
  app.setValidatorCompiler(() => () => true);
  return app;
}
