// POST /transaction/status — a merchant reads one of its own transactions (docs/api.md, "Status").
import type { FastifyInstance } from 'fastify';
import { missingField } from '../../domain/errors.ts';
import { statusOf } from '../../domain/responses.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import { StatusResponseSchema } from '../../domain/wire/payment-responses.ts';
import { registerJsonOperation, type JsonOperation } from '../edge/json-operation.ts';
import { asObject, referenceField, type JsonObject } from '../edge/request-body.ts';
import { operation, StatusRequestSchema } from '../schemas.ts';
import { merchantOf, type Authenticate } from './authenticate.ts';

export type TransactionReference = { transactionid?: string; trackid?: string };

export type StatusRouteDeps = {
  authenticate: Authenticate;
  /** One of the merchant's own transactions, or NOT_FOUND (app/query-status.ts). */
  findTransaction: (merchantId: string, reference: TransactionReference) => Promise<TransactionRecord>;
  /** PUBLIC_BASE_URL: the answer carries the customer's page address. */
  publicBaseUrl: string;
};

/** `transactionid` or `trackid` (transactionid wins when both are given). */
export function transactionReference(body: JsonObject): TransactionReference {
  for (const field of ['transactionid', 'trackid'] as const) {
    const value = body[field];
    if (value === undefined || value === null || value === '') continue;
    return { [field]: referenceField(value, field) };
  }
  throw missingField('transactionid');
}

export function registerStatusRoute(app: FastifyInstance, deps: StatusRouteDeps): JsonOperation {
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
        const merchant = merchantOf(deps.authenticate, body, clientAddress);
        const transaction = await deps.findTransaction(merchant.id, transactionReference(body));
        return { body: statusOf(transaction, deps.publicBaseUrl) };
      },
    },
    schema,
  );
}
