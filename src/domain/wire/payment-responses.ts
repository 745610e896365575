// What POST /transaction/s2s and POST /transaction/status answer (docs/api.md, "Initiation" and
// "Status"); the sandbox completion answers the status shape too. domain/responses.ts builds them.
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, PayerCheckSchema } from './common.ts';

// `type` and `result` stay plain strings: narrowing them to literal unions would change the
// published /openapi.json (an `anyOf` of constants instead of `"type": "string"`).
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
export type InitiationResponse = Static<typeof InitiationResponseSchema>;

export const StatusResponseSchema = Type.Object({
  ...InitiationResponseSchema.properties,
  bill_amount: NullableString,
  bill_currencycode: NullableString,
  created_at: NullableString,
  completed_at: NullableString,
  /** Total refunded so far ("0.00" when none); null in an error. */
  refunded_amount: NullableString,
  /** The payer check's verdict, once there is one (absent otherwise). */
  payer_check: Type.Optional(PayerCheckSchema),
});
export type StatusResponse = Static<typeof StatusResponseSchema>;
