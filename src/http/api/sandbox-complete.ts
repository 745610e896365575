// POST /sandbox/transaction/complete — finish a payment without a browser (sandbox only).
import type { FastifyInstance } from 'fastify';
import type { CompletePayment } from '../../app/complete-payment.ts';
import { GatewayError, invalidField, missingField } from '../../domain/errors.ts';
import { isSandboxOutcome, SANDBOX_OUTCOMES } from '../../domain/lifecycle.ts';
import { statusOf } from '../../domain/responses.ts';
import { StatusResponseSchema } from '../../domain/wire/payment-responses.ts';
import { asObject, referenceField } from '../edge/request-body.ts';
import { operation, SandboxCompleteRequestSchema } from '../schemas.ts';
import { merchantOf, type Authenticate } from './authenticate.ts';

export type SandboxCompleteRouteDeps = {
  authenticate: Authenticate;
  complete: Pick<CompletePayment, 'execute'>;
  /** MODE=sandbox; in live mode the route answers 404. */
  sandbox: boolean;
  /** PUBLIC_BASE_URL: the answer carries the customer's page address. */
  publicBaseUrl: string;
};

export function registerSandboxCompleteRoute(app: FastifyInstance, deps: SandboxCompleteRouteDeps): void {
  app.post(
    '/sandbox/transaction/complete',
    {
      config: { errorShape: 'status' },
      schema: operation(
        {
          operationId: 'completeSandboxPayment',
          tag: 'Sandbox',
          summary: 'Sandbox: finish a payment without a browser',
          description: 'Sandbox mode only (404 `NOT_FOUND` in live mode). Answers the status shape.',
          body: SandboxCompleteRequestSchema,
        },
        StatusResponseSchema,
      ),
    },
    async (request) => {
      if (!deps.sandbox) {
        // Registered in live mode too, so the 404 comes in this operation's error shape.
        throw new GatewayError('NOT_FOUND', 'Sandbox completion is not available in live mode.');
      }
      const body = asObject(request.body);
      const merchant = merchantOf(deps.authenticate, body, request.ip);
      if (body.transactionid === undefined || body.transactionid === null || body.transactionid === '')
        throw missingField('transactionid');
      const id = referenceField(body.transactionid, 'transactionid');
      const outcome = body.outcome ?? undefined; // null means "not given", like absent
      if (outcome !== undefined && !isSandboxOutcome(outcome)) {
        throw invalidField('outcome', `it must be one of ${SANDBOX_OUTCOMES.join(', ')}`);
      }
      const done = await deps.complete.execute(id, 'sandbox', {
        merchantId: merchant.id,
        ...(outcome !== undefined && { override: outcome }),
      });
      return statusOf(done, deps.publicBaseUrl);
    },
  );
}
