// The edge pipeline (pipeline.ts) installed in Fastify: its hooks and handlers call the same
// functions the JSON fast lane calls directly, so a request answers alike whichever path took it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';
import { sendPageError } from '../hosted-page/page-errors.ts';
import type { ErrorAnswer, ErrorShape } from './error-answer.ts';
import {
  admit,
  answerError,
  atCapacity,
  DRAINING_HEADERS,
  drainingError,
  JSON_TYPE,
  logCompleted,
  SHED_HEADERS,
  type EdgePipeline,
} from './pipeline.ts';
import { missingHost } from './transport-errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The shape of the route's error answers (error-answer.ts); the initiation shape when not set. */
    errorShape?: ErrorShape;
  }
}

/** Installs the pipeline before any route is registered; Fastify's genReqId is `newRequestId`. */
export function installEdge(app: FastifyInstance, edge: EdgePipeline): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (edge.draining()) {
      reply.headers(DRAINING_HEADERS);
      const hold = edge.drainingHold?.();
      if (hold) await hold;
      throw drainingError();
    }
    const noHost = missingHost(request);
    if (noHost) throw noHost;
    const shed = admit(edge.shedding, request.url, errorShapeOf(request), reply.raw);
    if (shed === undefined) return;
    await new Promise<void>((resolve) => edge.shedding.hold(resolve));
    if (shed.body === undefined) throw atCapacity(); // the hosted page's HTML error, through the error handler
    return reply.code(503).headers(SHED_HEADERS).type(JSON_TYPE).send(shed.body);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const req = { id: request.id, method: request.method, url: request.url, ip: request.ip };
    logCompleted(edge.logger, req, reply.statusCode, reply.elapsedTime);
    // The route pattern, not the URL: unmatched paths share one label, so cardinality stays bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    edge.answers.requestAnswered(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.setErrorHandler((error, request, reply) =>
    send(answerError(error, errorShapeOf(request), request.body, request.log, edge), reply),
  );
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const error = new GatewayError('NOT_FOUND', `There is no operation ${request.method} ${path}.`);
    return send(answerError(error, errorShapeOf(request), request.body, request.log, edge), reply);
  });
}

function errorShapeOf(request: FastifyRequest): ErrorShape {
  return request.routeOptions.config?.errorShape ?? 'initiation';
}

function send(answer: ErrorAnswer, reply: FastifyReply): FastifyReply {
  reply.code(answer.status).headers(answer.headers);
  return answer.body === undefined ? sendPageError(answer.error, reply) : reply.send(answer.body);
}
