// The one place that wires the HTTP app. main.ts and the tests call it the same way.
import { createServer } from 'node:http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError } from '../domain/errors.ts';
import type { Services } from '../app/services.ts';
import { httpStatusOf } from './error-status.ts';
import { registerJsonParser, type JsonObject } from './request-body.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerMetrics } from './routes/metrics.ts';
import { registerInitiateRoute } from './routes/initiate.ts';
import { registerStatusRoute } from './routes/status.ts';
import { registerSandboxCompleteRoute } from './routes/sandbox-complete.ts';
import { registerBalanceRoute } from './routes/balance.ts';
import { registerRefundRoute } from './routes/refund.ts';
import { errorHeaders, jsonErrorBody, toGatewayError, type ErrorShape } from './error-answer.ts';
import { registerRedirectPageRoutes } from './routes/redirect-page.ts';
import { registerRedirectQrPngRoute } from './routes/redirect-qr-png.ts';
import { registerFormParser } from './hosted-page/form-body.ts';
import { answerClientError, answerFrameworkError, missingHost } from './transport-errors.ts';
import { registerLoadShedding } from './load-shedding.ts';
import { createJsonFastLane, type FastLane } from './json-fast-lane.ts';
import { clientAddressOf } from './client-address.ts';
import { limitConnections } from './acceptor-pool.ts';
import { registerAccessLog } from './access-log.ts';
import { sendPageError } from './hosted-page/page-errors.ts';
import { registerOpenApi } from './openapi/openapi.ts';
import { registerDocsPage } from './openapi/docs-page.ts';
import { registerConsole } from './console/console-routes.ts';

export type { ErrorShape };

declare module 'fastify' {
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

export type AppOptions = { logger: Logger; draining?: () => boolean };

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const httpOptions = {
    requireHostHeader: false, // checked in onRequest, to answer in the contract's shape
    headersTimeout: config.headersTimeoutMs,
    // How often Node checks the header/request timeouts (its default, 30 s, would let a
    // slow client keep its socket up to 30 s past the limit).
    connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
  };
  /** Set once the routes exist; until then every request goes to Fastify. */
  let fastLane: FastLane | undefined;
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One access-log line per request (access-log.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // The server Fastify would build, with the JSON fast lane in front of Fastify's router.
    serverFactory: (handler) => {
      const server = createServer(httpOptions, (request, response) => {
        if (fastLane === undefined || !fastLane(request, response)) handler(request, response);
      });
      server.keepAliveTimeout = config.keepAliveTimeoutMs;
      server.requestTimeout = config.requestTimeoutMs;
      return server;
    },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });

  limitConnections(app.server, config.maxConnections);
  registerJsonParser(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (options.draining?.()) {
      // Tell keep-alive clients to reconnect elsewhere; the socket closes after this answer.
      reply.header('connection', 'close');
      throw new GatewayError('SERVICE_UNAVAILABLE', 'The gateway is shutting down; retry shortly.');
    }
    const noHost = missingHost(request);
    if (noHost) throw noHost;
  });
  const shedding = registerLoadShedding(app, { maxInFlight: config.maxInFlight, shedDelayMs: config.shedDelayMs }, () =>
    services.metrics.requestShed(),
  );
  services.metrics.trackInFlight(() => shedding.inFlight.current);
  registerAccessLog(app, options.logger);
  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error, request.log, services.storeHealth.isUnavailable);
    if (gatewayError.tag === 'SERVICE_UNAVAILABLE' && !isGatewayError(error)) services.storeHealth.reportUnavailable();
    return sendError(gatewayError, request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new GatewayError('NOT_FOUND', `There is no operation ${request.method} ${request.url.split('?')[0]}.`),
      request,
      reply,
    ),
  );

  // Body schemas document requests (OpenAPI); the domain validates them itself so errors come
  // in the contract's shape and name the field, hence no Fastify body validation.
  app.setValidatorCompiler(() => () => true);
  await registerOpenApi(app, config); // before the routes: it collects them as they register
  registerDocsPage(app, config);
  registerHealthRoutes(app, services);
  registerMetrics(app, services);
  const hotOperations = [registerInitiateRoute(app, services), registerStatusRoute(app, services)];
  registerBalanceRoute(app, services);
  registerRefundRoute(app, services);
  registerSandboxCompleteRoute(app, services); // live mode: answers 404 in the status error shape
  // The hosted page lives in its own scope so its form parser never reaches the JSON API.
  await app.register(async (scope) => {
    registerFormParser(scope);
    registerRedirectPageRoutes(scope, services);
    registerRedirectQrPngRoute(scope, services);
  });
  await registerConsole(app, services); // the web console, in its own scope under /console
  fastLane = createJsonFastLane({
    operations: hotOperations,
    bodyLimit: config.bodyLimitBytes,
    shedding,
    draining: options.draining ?? (() => false),
    clientAddress: clientAddressOf(config.trustProxy),
    logger: options.logger,
    isStoreUnavailable: services.storeHealth.isUnavailable,
    onStoreUnavailable: () => services.storeHealth.reportUnavailable(),
  });
  return app;
}

function sendError(error: GatewayError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body = (request.body && typeof request.body === 'object' ? request.body : undefined) as JsonObject | undefined;
  const shape = request.routeOptions.config?.errorShape ?? 'initiation';
  reply.code(httpStatusOf(error)).headers(errorHeaders(error));
  return shape === 'page' ? sendPageError(error, reply) : reply.send(jsonErrorBody(error, shape, body));
}
