// POST /transaction/s2s — start a Thai QR debit payment (contract §2).
import type { FastifyInstance } from 'fastify';
import { registerJsonOperation, type JsonOperation } from '../json-operation.ts';
import { validateInitiation } from '../../domain/initiation-request.ts';
import { checkUrl } from '../../domain/outbound-policy.ts';
import type { Services } from '../../app/services.ts';
import { asObject } from '../request-body.ts';
import { InitiationRequestSchema, InitiationResponseSchema, operation } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function registerInitiateRoute(app: FastifyInstance, services: Services): JsonOperation {
  const policy = services.outboundPolicy;
  const limits = {
    minAmountMinor: services.config.minAmountMinor,
    maxAmountMinor: services.config.maxAmountMinor,
    checkServerUrl: (url: string) => {
      const verdict = checkUrl(url, policy);
      return verdict.ok ? undefined : verdict.reason;
    },
  };
  const schema = operation({ operationId: 'initiatePayment', tag: 'Payments', summary: 'Start a Thai QR debit payment', description: 'Answers a `redirectUrl` for the customer. Idempotent on `trackid`: the same content again answers the original response with `Idempotent-Replayed: true`.', body: InitiationRequestSchema }, InitiationResponseSchema);
  return registerJsonOperation(app, {
    path: '/transaction/s2s',
    errorShape: 'initiation',
    async handle(raw, clientAddress) {
      const body = asObject(raw);
      const merchant = authenticate(services, body, clientAddress);
      const input = validateInitiation(body, limits);
      const outcome = await services.initiate.execute(merchant.id, input);
      services.metrics.initiated(outcome.replayed);
      return outcome.replayed ? { body: outcome.response, headers: REPLAYED } : { body: outcome.response };
    },
  }, schema);
}

const REPLAYED = { 'idempotent-replayed': 'true' };
