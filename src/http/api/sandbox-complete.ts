// POST /sandbox/transaction/complete — finish a payment without a browser (sandbox only).
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidField, missingField } from '../../domain/errors.ts';
import { isSandboxOutcome, SANDBOX_OUTCOMES } from '../../domain/lifecycle.ts';
import { statusOf } from '../../domain/responses.ts';
import { StatusResponseSchema } from '../../domain/wire/payment-responses.ts';
import type { Services } from '../../app/services.ts';
import { asObject, referenceField } from '../request-body.ts';
import { operation, SandboxCompleteRequestSchema } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function registerSandboxCompleteRoute(app: FastifyInstance, services: Services): void {
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
      if (services.config.mode !== 'sandbox') {
        // Registered in live mode too, so the 404 comes in this operation's error shape.
        throw new GatewayError('NOT_FOUND', 'Sandbox completion is not available in live mode.');
      }
      const body = asObject(request.body);
      const merchant = authenticate(services, body, request.ip);
      if (body.transactionid === undefined || body.transactionid === null || body.transactionid === '')
        throw missingField('transactionid');
      const id = referenceField(body.transactionid, 'transactionid');
      const outcome = body.outcome ?? undefined; // null means "not given", like absent
      if (outcome !== undefined && !isSandboxOutcome(outcome)) {
        throw invalidField('outcome', `it must be one of ${SANDBOX_OUTCOMES.join(', ')}`);
      }
      const done = await services.complete.execute(id, 'sandbox', {
        merchantId: merchant.id,
        ...(outcome !== undefined && { override: outcome }),
      });
      return statusOf(done, services.config.publicBaseUrl);
    },
  );
}
