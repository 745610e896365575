// POST /transaction/s2s — start a Thai QR debit payment (docs/api.md, "Initiation").
import type { FastifyInstance } from 'fastify';
import type { InitiatePayment } from '../../app/initiate-payment.ts';
import { validateInitiation } from '../../domain/initiation-request.ts';
import { checkUrl, type OutboundPolicy } from '../../domain/outbound-policy.ts';
import { InitiationResponseSchema } from '../../domain/wire/payment-responses.ts';
import { registerJsonOperation, type JsonOperation } from '../edge/json-operation.ts';
import { asObject } from '../edge/request-body.ts';
import { InitiationRequestSchema, operation } from '../schemas.ts';
import { merchantOf, type Authenticate } from './authenticate.ts';

export type InitiateRouteDeps = {
  authenticate: Authenticate;
  initiate: Pick<InitiatePayment, 'execute'>;
  /** Counts initiations and replays (app/gateway-metrics.ts). */
  initiated: (replayed: boolean) => void;
  /** Where notifications may go: a serverUrl outside it is refused at initiation. */
  outboundPolicy: OutboundPolicy;
  minAmountMinor: bigint;
  maxAmountMinor: bigint;
};

export function registerInitiateRoute(app: FastifyInstance, deps: InitiateRouteDeps): JsonOperation {
  const limits = {
    minAmountMinor: deps.minAmountMinor,
    maxAmountMinor: deps.maxAmountMinor,
    checkServerUrl: serverUrlVerdicts(deps.outboundPolicy),
  };
  const schema = operation(
    {
      operationId: 'initiatePayment',
      tag: 'Payments',
      summary: 'Start a Thai QR debit payment',
      description:
        'Answers a `redirectUrl` for the customer. Idempotent on `trackid`: the same content again answers the ' +
        'original response with `Idempotent-Replayed: true`.',
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
        const merchant = merchantOf(deps.authenticate, body, clientAddress);
        const input = validateInitiation(body, limits);
        const outcome = await deps.initiate.execute(merchant.id, input);
        deps.initiated(outcome.replayed);
        return outcome.replayed ? { body: outcome.response, headers: REPLAYED } : { body: outcome.response };
      },
    },
    schema,
  );
}

/**
 * The outbound policy's verdict on a serverUrl (the reason it is refused, or undefined). A
 * verdict depends only on the URL's text and this process's policy (fixed at start; names are
 * judged again on what they resolve to at connect time), and a shop sends the same serverUrl
 * with every order: the last MAX_VERDICTS verdicts are kept.
 */
function serverUrlVerdicts(policy: OutboundPolicy): (url: string) => string | undefined {
  const verdicts = new Map<string, string | undefined>();
  return (url) => {
    if (verdicts.has(url)) return verdicts.get(url);
    const verdict = checkUrl(url, policy);
    const reason = verdict.ok ? undefined : verdict.reason;
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(url, reason);
    return reason;
  };
}

const REPLAYED = { 'idempotent-replayed': 'true' };
const MAX_VERDICTS = 1024;
