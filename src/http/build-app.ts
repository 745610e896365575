// The one place that wires the HTTP app. main.ts and the tests call it the same way.
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError } from '../domain/errors.ts';
import { balanceError, initiationError, statusError } from '../domain/responses.ts';
import type { Services } from '../app/services.ts';
import { isStoreUnavailable } from '../store/open-store.ts';
import { httpStatusOf } from './error-status.ts';
import { registerJsonParser, type JsonObject } from './request-body.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerMetrics } from './routes/metrics.ts';
import { registerInitiateRoute } from './routes/initiate.ts';
import { registerStatusRoute } from './routes/status.ts';
import { registerSandboxCompleteRoute } from './routes/sandbox-complete.ts';
import { registerBalanceRoute } from './routes/balance.ts';
import { registerRefundRoute } from './routes/refund.ts';
import { refundError } from '../domain/refund-response.ts';
import { registerRedirectPageRoutes } from './routes/redirect-page.ts';
import { registerRedirectQrPngRoute } from './routes/redirect-qr-png.ts';
import { registerFormParser } from './hosted-page/form-body.ts';
import { answerClientError, answerFrameworkError, missingHost } from './transport-errors.ts';
import { registerLoadShedding } from './load-shedding.ts';
import { sendPageError } from './hosted-page/page-errors.ts';
import { registerOpenApi } from './openapi/openapi.ts';
import { registerDocsPage } from './openapi/docs-page.ts';
import { registerConsole } from './console/console-routes.ts';

/** Which response shape a route's errors take (real clients parse one shape per operation). */
export type ErrorShape = 'initiation' | 'status' | 'balance' | 'page' | 'refund';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

export type AppOptions = { logger: Logger; draining?: () => boolean };

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // Fastify takes a hop count too (proxy-addr); its type declaration omits it.
    trustProxy: config.trustProxy as boolean | string[],
    return503OnClosing: false,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    http: {
      requireHostHeader: false, // checked in onRequest, to answer in the contract's shape
      headersTimeout: config.headersTimeoutMs,
      // How often Node checks the header/request timeouts (its default, 30 s, would let a
      // slow client keep its socket up to 30 s past the limit).
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });

  app.server.maxConnections = config.maxConnections;
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
  const inFlight = registerLoadShedding(app, config.maxInFlight, () => services.metrics.requestShed());
  services.metrics.trackInFlight(() => inFlight.current);
  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error as Error, request);
    if (gatewayError.tag === 'SERVICE_UNAVAILABLE' && !isGatewayError(error)) services.storeHealth.reportUnavailable();
    return sendError(gatewayError, request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(new GatewayError('NOT_FOUND', `There is no operation ${request.method} ${request.url.split('?')[0]}.`), request, reply),
  );

  // Body schemas document requests (OpenAPI); the domain validates them itself so errors come
  // in the contract's shape and name the field, hence no Fastify body validation.
  app.setValidatorCompiler(() => () => true);
  await registerOpenApi(app, config); // before the routes: it collects them as they register
  registerDocsPage(app, config);
  registerHealthRoutes(app, services);
  registerMetrics(app, services);
  registerInitiateRoute(app, services);
  registerStatusRoute(app, services);
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
  return app;
}

function toGatewayError(error: FastifyError | Error, request: FastifyRequest): GatewayError {
  if (isGatewayError(error)) return error;
  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('MALFORMED_REQUEST', "The Content-Type must be 'application/json'.", 'content_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('MALFORMED_REQUEST', 'The request body is larger than the limit.', 'too_large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('MALFORMED_REQUEST', 'The request body is empty; send a JSON object.', 'syntax');
  }
  const statusCode = (error as FastifyError).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new GatewayError('MALFORMED_REQUEST', 'The request could not be read.', 'syntax');
  }
  if (isStoreUnavailable(error)) {
    request.log.warn({ err: error }, 'store unavailable');
    return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway cannot reach its store right now; retry shortly.');
  }
  request.log.error({ err: error }, 'unexpected error');
  return new GatewayError('INTERNAL_ERROR', 'An internal error occurred; the request was not completed. Retry later or contact support with the x-request-id.');
}

function sendError(error: GatewayError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body = (request.body && typeof request.body === 'object' ? request.body : undefined) as JsonObject | undefined;
  const shape = request.routeOptions.config?.errorShape ?? 'initiation';
  reply.code(httpStatusOf(error));
  if (error.tag === 'RATE_LIMITED') reply.header('retry-after', '1');
  if (error.tag === 'SERVICE_UNAVAILABLE') reply.header('retry-after', '5');
  if (error.malformed === 'timeout') reply.header('connection', 'close');
  switch (shape) {
    case 'page':
      return sendPageError(error, reply);
    case 'balance':
      return reply.send(balanceError(error, body));
    case 'refund':
      return reply.send(refundError(error, body));
    case 'status':
      return reply.send(statusError(error, body));
    default:
      return reply.send(initiationError(error, body));
  }
}
