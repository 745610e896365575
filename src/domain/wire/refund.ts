// What POST /transaction/refund answers (docs/api.md, "Refund"); domain/refund-response.ts builds it.
import { Type, type Static } from '@sinclair/typebox';
import { NullableString } from './common.ts';

// `type` and `result` stay plain strings: literal unions would change the published /openapi.json.
export const RefundResponseSchema = Type.Object({
  type: Type.String(),
  result: Type.String(),
  responsecode: Type.String(),
  merchantid: NullableString,
  trackid: NullableString,
  transactionid: NullableString,
  refundid: NullableString,
  /** The request's `trackid`: the shop's reference for this refund (the payment's is `trackid`). */
  reference: NullableString,
  bill_amount: NullableString,
  bill_currencycode: NullableString,
  refunded_amount: NullableString,
  refundable_amount: NullableString,
  error_code_tag: NullableString,
  error_text: NullableString,
  created_at: NullableString,
});
export type RefundResponse = Static<typeof RefundResponseSchema>;
