// A JSON API operation as a plain function of the parsed body and the client's address, so the
// same code answers it whether Fastify routed the request or the JSON fast lane took it
// (json-fast-lane.ts). Errors are thrown; both paths turn them into answers with error-answer.ts.
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { JsonErrorShape } from './error-answer.ts';

export type JsonAnswer = { body: object; headers?: Record<string, string> };

export type JsonOperation = {
  path: string;
  errorShape: JsonErrorShape;
  handle(body: unknown, clientAddress: string | undefined): Promise<JsonAnswer>;
};

/** Registers `operation` as a Fastify POST route (the path every request can take) and returns it. */
export function registerJsonOperation(
  app: FastifyInstance,
  operation: JsonOperation,
  schema: FastifySchema,
): JsonOperation {
  app.post(operation.path, { config: { errorShape: operation.errorShape }, schema }, async (request, reply) => {
    const answer = await operation.handle(request.body, request.ip);
    if (answer.headers) reply.headers(answer.headers);
    return answer.body;
  });
  return operation;
}
