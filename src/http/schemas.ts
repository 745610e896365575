// Route schemas. The bodies the domain builds (responses, notifications) are declared once in
// domain/wire/, with their TypeScript types derived from them; here: request bodies (documentation
// only), the health answers the routes build themselves, and `operation`, which puts them together.
import { Type, type TSchema } from '@sinclair/typebox';
import { SANDBOX_OUTCOMES } from '../domain/lifecycle.ts';

// ---- Request bodies: documentation only (openapi/). The domain validates requests itself, so
// errors come in the documented shape (docs/api.md, "Errors") and name the field; build-app.ts
// switches Fastify's body validation off for that reason.

const Credentials = {
  merchantid: Type.String({ description: 'Your merchant id.' }),
  password: Type.String({ description: 'Your API password.' }),
};
const Amount = Type.Union([Type.String({ pattern: '^\\d+(\\.\\d+)?$' }), Type.Number()], {
  description: 'Exact decimal as a JSON number or numeric string; at most 2 significant decimals for THB.',
});

export const InitiationRequestSchema = Type.Object(
  {
    ...Credentials,
    payment_method: Type.Object({ type: Type.Literal('THAI_DEBIT') }),
    trackid: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Your reference, unique per merchant; initiation is idempotent on it.',
    }),
    bill_currencycode: Type.String({ description: '`THB` (case-insensitive).' }),
    bill_amount: Amount,
    bill_country: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
    bill_customerip: Type.String({ description: 'The customer’s IPv4 or IPv6 address.' }),
    bill_email: Type.String({ maxLength: 254 }),
    returnUrl: Type.String({
      format: 'uri',
      maxLength: 2048,
      description: 'Where the hosted page sends the customer back.',
    }),
    serverUrl: Type.String({
      format: 'uri',
      maxLength: 2048,
      description: 'Where the signed result notification is POSTed.',
    }),
    payer_account_no: Type.String({ pattern: '^\\d{6,20}$' }),
    payer_account_name: Type.String({ minLength: 1, maxLength: 140 }),
    payer_bank_code: Type.String({ description: 'Bank of Thailand code (`014`) or short name (`SCB`).' }),
    productdesc: Type.Optional(Type.String({ description: 'Shown on the hosted page.' })),
    lang: Type.Optional(Type.String({ description: '`th` or `en`: the hosted page language.' })),
  },
  { additionalProperties: true },
);

export const StatusRequestSchema = Type.Object(
  {
    ...Credentials,
    transactionid: Type.Optional(Type.String({ description: 'The gateway’s id (wins when both are sent).' })),
    trackid: Type.Optional(Type.String({ description: 'Your reference.' })),
  },
  { additionalProperties: true },
);

export const SandboxCompleteRequestSchema = Type.Object(
  {
    ...Credentials,
    transactionid: Type.String(),
    outcome: Type.Optional(
      Type.Union(
        SANDBOX_OUTCOMES.map((o) => Type.Literal(o)),
        { description: 'Without it: ≤ 10000.00 THB succeeds, above is DECLINED.' },
      ),
    ),
  },
  { additionalProperties: true },
);

export const BalanceRequestSchema = Type.Object(Credentials, { additionalProperties: true });

export const RefundRequestSchema = Type.Object(
  {
    ...Credentials,
    transactionid: Type.String({ description: 'The payment’s gateway id (`tranid` is accepted as an alias).' }),
    tranid: Type.Optional(
      Type.String({ description: 'Alias of `transactionid`; when both are sent they must be equal.' }),
    ),
    bill_amount: Amount, // more than 0, at most what is still refundable (the operation's description)
    bill_currencycode: Type.String({ description: 'The payment’s currency (`THB`).' }),
    reason: Type.Optional(Type.String({ maxLength: 255 })),
    trackid: Type.Optional(
      Type.String({
        maxLength: 254,
        description: 'Your free-text reference for the refund; not matched against the payment.',
      }),
    ),
    refund_reference: Type.Optional(
      Type.String({
        description:
          'Idempotency key (or the `Idempotency-Key` header); without one the key is derived from the content.',
      }),
    ),
  },
  { additionalProperties: true },
);

export const HealthResponseSchema = Type.Object({ status: Type.Literal('ok') });
export const ReadyResponseSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  store: Type.String(),
});

export type OperationDoc = { operationId: string; summary: string; description?: string; tag: string; body?: TSchema };

/** A route's schema: its OpenAPI description, request body (documentation only) and responses. */
export function operation(doc: OperationDoc, response: TSchema) {
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description !== undefined && { description: doc.description }),
    tags: [doc.tag],
    ...(doc.body !== undefined && { body: doc.body }),
    response: {
      '2xx': { ...response, description: 'Done; `type` is `valid`.' },
      '4xx': { ...response, description: 'Refused, nothing changed: `type` is `error`, see the error table.' },
      '5xx': {
        ...response,
        description: 'Not done (store unreachable, shutting down, internal error); safe to retry.',
      },
    },
  };
}
