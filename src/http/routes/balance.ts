// POST /<ServiceName>InstaPay/QueryPayoutBalance (contract §7).
import type { FastifyInstance } from 'fastify';
import { formatMinor } from '../../domain/money.ts';
import type { BalanceResponse } from '../../domain/responses.ts';
import type { Services } from '../../app/services.ts';
import { asObject } from '../request-body.ts';
import { allStatuses, BalanceResponseSchema } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

export function maskAccount(account: string): string {
  return account.slice(-4);
}

export function registerBalanceRoute(app: FastifyInstance, services: Services): void {
  const path = `/${services.config.serviceName}InstaPay/QueryPayoutBalance`;
  app.post(path, { config: { errorShape: 'balance' }, schema: allStatuses(BalanceResponseSchema) }, async (request): Promise<BalanceResponse> => {
    const body = asObject(request.body);
    const merchant = authenticate(services, body, request);
    const balance = await services.ledger.balance({ kind: 'merchant_payout', merchantId: merchant.id, currency: merchant.payoutCurrency });
    return {
      type: 'valid',
      result: 'Success',
      responsecode: '00',
      merchantid: merchant.id,
      token: null,
      error_code_tag: null,
      error_text: 'Success',
      description: 'Success',
      balanceAmt: formatMinor(balance, 4),
      currency: merchant.payoutCurrency,
      maskedcard: maskAccount(merchant.payoutAccount),
    };
  });
}
