// The one place that wires the HTTP app. main.ts and the tests call it the same way, with the
// dependencies the composition root builds (compose/http-deps.ts). Three seams: Fastify and its
// server (edge/fastify-server.ts), the edge pipeline every request goes through (edge/), and the
// routes. The JSON fast lane answers the hot operations through the same pipeline.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { registerBalanceRoute, type BalanceRouteDeps } from './api/balance.ts';
import { registerHealthRoutes, type HealthRouteDeps } from './api/health.ts';
import { registerInitiateRoute, type InitiateRouteDeps } from './api/initiate.ts';
import { registerMetrics, type MetricsRouteDeps } from './api/metrics.ts';
import { registerRedirectPageRoutes, type RedirectPageDeps } from './api/redirect-page.ts';
import { registerRedirectQrPngRoute, type RedirectQrPngDeps } from './api/redirect-qr-png.ts';
import { registerRefundRoute, type RefundRouteDeps } from './api/refund.ts';
import { registerSandboxCompleteRoute, type SandboxCompleteRouteDeps } from './api/sandbox-complete.ts';
import { registerStatusRoute, type StatusRouteDeps } from './api/status.ts';
import type { ConsoleDeps } from './console/console-deps.ts';
import { registerConsole } from './console/console-routes.ts';
import { clientAddressOf } from './edge/client-address.ts';
import type { StoreFaults } from './edge/error-answer.ts';
import { installEdge } from './edge/fastify-edge.ts';
import { createFastify, type ServerSettings } from './edge/fastify-server.ts';
import { createJsonFastLane, type FastLane } from './edge/json-fast-lane.ts';
import type { JsonOperation } from './edge/json-operation.ts';
import { createLoadShedding } from './edge/load-shedding.ts';
import type { AnswerCounts, EdgePipeline } from './edge/pipeline.ts';
import { registerFormParser } from './hosted-page/form-body.ts';
import { registerDocsPage } from './openapi/docs-page.ts';
import { registerOpenApi } from './openapi/openapi.ts';

/** What the edge pipeline needs besides the logger: the shedding limits and where its events go. */
export type EdgeDeps = StoreFaults & {
  maxInFlight: number;
  shedDelayMs: number;
  /** Counts a shed request (metrics). */
  onShed: () => void;
  /** Hands the in-flight gauge its source (metrics). */
  trackInFlight: (current: () => number) => void;
  /** Counts every answer, from Fastify and the JSON fast lane alike (metrics). */
  answers: AnswerCounts;
};

/** Each route's own dependencies (api/), nothing more. */
export type ApiDeps = {
  health: HealthRouteDeps;
  metrics: MetricsRouteDeps;
  initiate: InitiateRouteDeps;
  status: StatusRouteDeps;
  balance: BalanceRouteDeps;
  refund: RefundRouteDeps;
  sandboxComplete: SandboxCompleteRouteDeps;
  redirectPage: RedirectPageDeps;
  redirectQrPng: RedirectQrPngDeps;
};

export type HttpDeps = {
  server: ServerSettings;
  edge: EdgeDeps;
  api: ApiDeps;
  /** PUBLIC_BASE_URL, for the OpenAPI document's server and the docs page's links. */
  publicBaseUrl: string;
  /** The web console's use cases and values (http/console/console-deps.ts). */
  console: ConsoleDeps;
  /**
   * The routes the running processor connector adds (KBank: its callback; SCB: its confirmation), built by the
   * composition root; none for the sandbox.
   */
  processorRoutes: ProcessorRoute[];
};

/** Registers one route of a processor connector on the app. */
export type ProcessorRoute = (app: FastifyInstance) => Promise<void>;

export type AppOptions = {
  logger: Logger;
  draining?: () => boolean;
  /** While draining: a promise the draining answers wait for (server.ts, while the listeners close). */
  drainingHold?: () => Promise<void> | undefined;
};

export async function buildApp(deps: HttpDeps, options: AppOptions): Promise<FastifyInstance> {
  /** Set once the routes exist; until then every request goes to Fastify. */
  let fastLane: FastLane | undefined;
  const app = createFastify(deps.server, options.logger, (request, response) =>
    fastLane === undefined ? false : fastLane(request, response),
  );
  const edge = edgePipeline(deps.edge, options);
  installEdge(app, edge);
  const hotOperations = await registerRoutes(app, deps);
  fastLane = createJsonFastLane({
    ...edge,
    operations: hotOperations,
    bodyLimit: deps.server.bodyLimitBytes,
    clientAddress: clientAddressOf(deps.server.trustProxy),
  });
  return app;
}

function edgePipeline(deps: EdgeDeps, options: AppOptions): EdgePipeline {
  const shedding = createLoadShedding({ maxInFlight: deps.maxInFlight, shedDelayMs: deps.shedDelayMs }, deps.onShed);
  deps.trackInFlight(() => shedding.inFlight.current);
  return {
    shedding,
    logger: options.logger,
    answers: deps.answers,
    draining: options.draining ?? (() => false),
    drainingHold: options.drainingHold ?? (() => undefined),
    isStoreUnavailable: deps.isStoreUnavailable,
    onStoreUnavailable: deps.onStoreUnavailable,
  };
}

/** Registers every route; returns the operations the JSON fast lane also answers. */
async function registerRoutes(app: FastifyInstance, deps: HttpDeps): Promise<JsonOperation[]> {
  const { api } = deps;
  await registerOpenApi(app, deps); // before the routes: it collects them as they register
  registerDocsPage(app, deps);
  registerHealthRoutes(app, api.health);
  registerMetrics(app, api.metrics);
  const hotOperations = [registerInitiateRoute(app, api.initiate), registerStatusRoute(app, api.status)];
  registerBalanceRoute(app, api.balance);
  registerRefundRoute(app, api.refund);
  registerSandboxCompleteRoute(app, api.sandboxComplete); // live mode: answers 404 in the status error shape
  // The hosted page lives in its own scope so its form parser never reaches the JSON API.
  await app.register(async (scope) => {
    registerFormParser(scope);
    registerRedirectPageRoutes(scope, api.redirectPage);
    registerRedirectQrPngRoute(scope, api.redirectQrPng);
  });
  await registerConsole(app, deps.console); // the web console, in its own scope under /console
  for (const register of deps.processorRoutes) await register(app);
  return hotOperations;
}
