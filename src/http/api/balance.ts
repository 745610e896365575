// POST /<ServiceName>InstaPay/QueryPayoutBalance (docs/api.md, "Payout balance"). The path segment
// follows the SERVICE_NAME setting; errors take the same shape (errorShape 'balance').
import type { FastifyInstance } from 'fastify';
import type { PayoutBalance } from '../../app/ledger-operations.ts';
import type { MerchantRecord } from '../../domain/merchant.ts';
import { formatMinor } from '../../domain/money.ts';
import { BalanceResponseSchema, type BalanceResponse } from '../../domain/wire/balance.ts';
import { asObject } from '../edge/request-body.ts';
import { BalanceRequestSchema, operation } from '../schemas.ts';
import { merchantOf, type Authenticate } from './authenticate.ts';

export type BalanceRouteDeps = {
  authenticate: Authenticate;
  payoutBalance: (merchant: MerchantRecord) => Promise<PayoutBalance>;
  /** SERVICE_NAME, the path's first segment. */
  serviceName: string;
};

export function balancePath(serviceName: string): string {
  return `/${serviceName}InstaPay/QueryPayoutBalance`;
}

export function registerBalanceRoute(app: FastifyInstance, deps: BalanceRouteDeps): void {
  app.post(
    balancePath(deps.serviceName),
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
      const merchant = merchantOf(deps.authenticate, body, request.ip);
      const balance = await deps.payoutBalance(merchant);
      return {
        type: 'valid',
        result: 'Success',
        responsecode: '00',
        merchantid: merchant.id,
        token: null,
        error_code_tag: null,
        error_text: 'Success',
        description: 'Success',
        // Always four fraction digits (docs/api.md, "Payout balance"), e.g. "12500.5000"; the ledger's own precision.
        balanceAmt: formatMinor(balance.balanceMinor, 4),
        currency: balance.currency,
        maskedcard: balance.maskedcard,
      };
    },
  );
}
