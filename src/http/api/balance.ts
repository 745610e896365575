// POST /<ServiceName>InstaPay/QueryPayoutBalance (docs/api.md, "Payout balance"). The path segment
// follows the SERVICE_NAME setting; errors take the same shape (build-app.ts, errorShape 'balance').
import type { FastifyInstance } from 'fastify';
import { formatMinor } from '../../domain/money.ts';
import { BalanceResponseSchema, type BalanceResponse } from '../../domain/wire/balance.ts';
import { payoutBalance } from '../../app/ledger-operations.ts';
import type { Services } from '../../app/services.ts';
import { asObject } from '../request-body.ts';
import { BalanceRequestSchema, operation } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function balancePath(serviceName: string): string {
  return `/${serviceName}InstaPay/QueryPayoutBalance`;
}

export function registerBalanceRoute(app: FastifyInstance, services: Services): void {
  app.post(
    balancePath(services.config.serviceName),
    {
      config: { errorShape: 'balance' },
      schema: operation(
        {
          operationId: 'queryPayoutBalance',
          tag: 'Balance',
          summary: 'Query your payout balance',
          description: 'The path follows the `SERVICE_NAME` setting (`/<SERVICE_NAME>InstaPay/QueryPayoutBalance`).',
          body: BalanceRequestSchema,
        },
        BalanceResponseSchema,
      ),
    },
    async (request): Promise<BalanceResponse> => {
      const body = asObject(request.body);
      const merchant = authenticate(services, body, request.ip);
      const balance = await payoutBalance(services.ledger, merchant);
      return {
        type: 'valid',
        result: 'Success',
        responsecode: '00',
        merchantid: merchant.id,
        token: null,
        error_code_tag: null,
        error_text: 'Success',
        description: 'Success',
        // Always four fraction digits [spec], e.g. "12500.5000"; the ledger's own precision.
        balanceAmt: formatMinor(balance.balanceMinor, 4),
        currency: balance.currency,
        maskedcard: balance.maskedcard,
      };
    },
  );
}
