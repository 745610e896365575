// Response schemas: Fastify compiles them into fast serialisers, and they document the API.
import { Type, type TSchema } from '@sinclair/typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const InitiationResponseSchema = Type.Object({
  type: Type.String(),
  result: Type.String(),
  responsecode: Type.String(),
  trackid: NullableString,
  merchantid: NullableString,
  redirectUrl: NullableString,
  token: NullableString,
  transactionid: NullableString,
  error_code_tag: NullableString,
  error_text: NullableString,
});

export const StatusResponseSchema = Type.Object({
  ...InitiationResponseSchema.properties,
  bill_amount: NullableString,
  bill_currencycode: NullableString,
  created_at: NullableString,
  completed_at: NullableString,
  refunded_amount: NullableString,
});

export const BalanceResponseSchema = Type.Object({
  type: Type.String(),
  result: Type.String(),
  responsecode: Type.String(),
  merchantid: NullableString,
  token: Type.Null(),
  error_code_tag: NullableString,
  error_text: Type.String(),
  description: Type.String(),
  balanceAmt: NullableString,
  currency: NullableString,
  maskedcard: NullableString,
});

export const RefundResponseSchema = Type.Object({
  type: Type.String(),
  result: Type.String(),
  responsecode: Type.String(),
  merchantid: NullableString,
  trackid: NullableString,
  transactionid: NullableString,
  refundid: NullableString,
  bill_amount: NullableString,
  bill_currencycode: NullableString,
  refunded_amount: NullableString,
  refundable_amount: NullableString,
  error_code_tag: NullableString,
  error_text: NullableString,
  created_at: NullableString,
});

/** Same shape whatever the status: real clients read the body and ignore the status. */
export function allStatuses(schema: TSchema) {
  return { response: { '2xx': schema, '4xx': schema, '5xx': schema } };
}
