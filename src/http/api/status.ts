// POST /transaction/status — a merchant reads one of its own transactions (docs/api.md, "Status").
import type { FastifyInstance } from 'fastify';
import { registerJsonOperation, type JsonOperation } from '../json-operation.ts';
import { missingField } from '../../domain/errors.ts';
import { statusOf } from '../../domain/responses.ts';
import { findMerchantTransaction } from '../../app/query-status.ts';
import type { Services } from '../../app/services.ts';
import { asObject, referenceField, type JsonObject } from '../request-body.ts';
import { StatusResponseSchema } from '../../domain/wire/payment-responses.ts';
import { operation, StatusRequestSchema } from '../schemas.ts';
import { authenticate } from './authenticate.ts';

/** `transactionid` or `trackid` (transactionid wins when both are given). */
export function transactionReference(body: JsonObject): { transactionid?: string; trackid?: string } {
  for (const field of ['transactionid', 'trackid'] as const) {
    const value = body[field];
    if (value === undefined || value === null || value === '') continue;
    return { [field]: referenceField(value, field) };
  }
  throw missingField('transactionid');
}

export function registerStatusRoute(app: FastifyInstance, services: Services): JsonOperation {
  const schema = operation(
    {
      operationId: 'getTransactionStatus',
      tag: 'Payments',
      summary: 'Query one of your transactions',
      description: 'By `transactionid` or `trackid`.',
      body: StatusRequestSchema,
    },
    StatusResponseSchema,
  );
  return registerJsonOperation(
    app,
    {
      path: '/transaction/status',
      errorShape: 'status',
      async handle(raw, clientAddress) {
        const body = asObject(raw);
        const merchant = authenticate(services, body, clientAddress);
        const transaction = await findMerchantTransaction(
          services.transactions,
          merchant.id,
          transactionReference(body),
        );
        return { body: statusOf(transaction, services.config.publicBaseUrl) };
      },
    },
    schema,
  );
}
