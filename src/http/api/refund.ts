// POST /transaction/refund — a merchant refunds (part of) one of its successful payments
// (docs/api.md, "Refund"). Errors take the refund response shape (errorShape 'refund').
import type { FastifyInstance } from 'fastify';
import type { RefundPayment } from '../../app/refund-payment.ts';
import { validateRefund } from '../../domain/refund-request.ts';
import { RefundResponseSchema } from '../../domain/wire/refund.ts';
import { asObject } from '../edge/request-body.ts';
import { operation, RefundRequestSchema } from '../schemas.ts';
import { merchantOf, type Authenticate } from './authenticate.ts';

export type RefundRouteDeps = {
  authenticate: Authenticate;
  refund: Pick<RefundPayment, 'execute'>;
};

export function registerRefundRoute(app: FastifyInstance, deps: RefundRouteDeps): void {
  app.post(
    '/transaction/refund',
    {
      config: { errorShape: 'refund' },
      schema: operation(
        {
          operationId: 'refundPayment',
          tag: 'Payments',
          summary: 'Refund all or part of a successful payment',
          description:
            'Several partial refunds per payment, never more than captured. Idempotent: on the `Idempotency-Key` ' +
            'header or `refund_reference`, else on the content; a replay answers the original refund with ' +
            '`Idempotent-Replayed: true`.',
          body: RefundRequestSchema,
        },
        RefundResponseSchema,
      ),
    },
    async (request, reply) => {
      const body = asObject(request.body);
      const merchant = merchantOf(deps.authenticate, body, request.ip);
      const header = request.headers['idempotency-key'];
      const input = validateRefund(body, Array.isArray(header) ? header.join(',') : header);
      const outcome = await deps.refund.execute(merchant.id, input);
      if (outcome.replayed) reply.header('idempotent-replayed', 'true');
      return outcome.response;
    },
  );
}
