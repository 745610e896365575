// What POST /<SERVICE_NAME>InstaPay/QueryPayoutBalance answers (docs/api.md, "Payout balance").
// http/api/balance.ts builds the success, domain/responses.ts the error.
import { Type, type Static } from '@sinclair/typebox';
import { NullableString } from './common.ts';

// `type` and `result` stay plain strings: literal unions would change the published /openapi.json.
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
export type BalanceResponse = Static<typeof BalanceResponseSchema>;
