// POST /transaction/s2s — start a Thai QR debit payment (contract §2).
import type { FastifyInstance } from 'fastify';
import { validateInitiation } from '../../domain/initiation-request.ts';
import { checkUrl } from '../../domain/outbound-policy.ts';
import type { Services } from '../../app/services.ts';
import { asObject } from '../request-body.ts';
import { InitiationRequestSchema, InitiationResponseSchema, operation } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function registerInitiateRoute(app: FastifyInstance, services: Services): void {
  const policy = services.outboundPolicy;
  const limits = {
    minAmountMinor: services.config.minAmountMinor,
    maxAmountMinor: services.config.maxAmountMinor,
    checkServerUrl: (url: string) => {
      const verdict = checkUrl(url, policy);
      return verdict.ok ? undefined : verdict.reason;
    },
  };
  app.post('/transaction/s2s', { config: { errorShape: 'initiation' }, schema: operation({ operationId: 'initiatePayment', tag: 'Payments', summary: 'Start a Thai QR debit payment', description: 'Answers a `redirectUrl` for the customer. Idempotent on `trackid`: the same content again answers the original response with `Idempotent-Replayed: true`.', body: InitiationRequestSchema }, InitiationResponseSchema) }, async (request, reply) => {
    const body = asObject(request.body);
    const merchant = authenticate(services, body, request);
    const input = validateInitiation(body, limits);
    const outcome = await services.initiate.execute(merchant.id, input);
    services.metrics.initiated(outcome.replayed);
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return outcome.response;
  });
}
