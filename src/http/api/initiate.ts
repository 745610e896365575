// POST /transaction/s2s — start a Thai QR debit payment (docs/api.md, "Initiation").
import type { FastifyInstance } from 'fastify';
import { registerJsonOperation, type JsonOperation } from '../json-operation.ts';
import { validateInitiation } from '../../domain/initiation-request.ts';
import { checkUrl } from '../../domain/outbound-policy.ts';
import type { Services } from '../../app/services.ts';
import { asObject } from '../request-body.ts';
import { InitiationResponseSchema } from '../../domain/wire/payment-responses.ts';
import { InitiationRequestSchema, operation } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function registerInitiateRoute(app: FastifyInstance, services: Services): JsonOperation {
  const policy = services.outboundPolicy;
  // A verdict depends only on the URL's text and this process's policy (fixed at start; names are
  // judged again on what they resolve to at connect time), and a shop sends the same serverUrl
  // with every order: the last MAX_VERDICTS verdicts are kept.
  const verdicts = new Map<string, string | undefined>();
  const limits = {
    minAmountMinor: services.config.minAmountMinor,
    maxAmountMinor: services.config.maxAmountMinor,
    checkServerUrl: (url: string) => {
      if (verdicts.has(url)) return verdicts.get(url);
      const verdict = checkUrl(url, policy);
      const reason = verdict.ok ? undefined : verdict.reason;
      if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
      verdicts.set(url, reason);
      return reason;
    },
  };
  const schema = operation(
    {
      operationId: 'initiatePayment',
      tag: 'Payments',
      summary: 'Start a Thai QR debit payment',
      description:
        'Answers a `redirectUrl` for the customer. Idempotent on `trackid`: the same content again answers the original response with `Idempotent-Replayed: true`.',
      body: InitiationRequestSchema,
    },
    InitiationResponseSchema,
  );
  return registerJsonOperation(
    app,
    {
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
    },
    schema,
  );
}

const REPLAYED = { 'idempotent-replayed': 'true' };
const MAX_VERDICTS = 1024;
