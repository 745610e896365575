// The bodies POSTed to a payment's serverUrl (docs/notifications.md): the payment result
// (domain/notification.ts builds it) and the refund notification (domain/refund-response.ts).
// /openapi.json publishes both under `webhooks`.
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, PayerCheckSchema } from './common.ts';

export const PaymentNotificationSchema = Type.Object({
  type: Type.Literal('valid'),
  result: Type.String({ description: '`CAPTURED` or `Not Successful`.' }),
  responsecode: Type.String({ description: '`0` success, `6` failed.' }),
  trackid: Type.String(),
  merchantid: Type.String(),
  transactionid: Type.String(),
  token: Type.String(),
  bill_amount: Type.String(),
  bill_currencycode: Type.String(),
  payment_method: Type.String(),
  error_code_tag: Type.Union([
    Type.Literal('DECLINED'),
    Type.Literal('EXPIRED'),
    Type.Literal('CANCELLED'),
    Type.Null(),
  ]),
  error_text: NullableString,
  event_id: Type.String({ description: 'Equal to the webhook-id header; deduplicate on it.' }),
  created_at: Type.String({ format: 'date-time' }),
  payer_check: Type.Optional(PayerCheckSchema),
});
export type PaymentNotification = Static<typeof PaymentNotificationSchema>;

export const RefundNotificationSchema = Type.Object({
  type: Type.Literal('valid'),
  event_type: Type.Literal('refund'),
  result: Type.Literal('REFUNDED'),
  responsecode: Type.Literal('10'),
  trackid: Type.String({ description: 'The payment’s trackid.' }),
  merchantid: Type.String(),
  transactionid: Type.String(),
  token: Type.String(),
  refundid: Type.String(),
  bill_amount: Type.String({ description: 'This refund’s amount.' }),
  bill_currencycode: Type.String(),
  payment_amount: Type.String({ description: 'The captured amount of the payment.' }),
  refunded_amount: Type.String({ description: 'Total refunded on the payment right after this refund.' }),
  refundable_amount: Type.String(),
  reason: NullableString,
  reference: NullableString,
  error_code_tag: Type.Null(),
  error_text: Type.Null(),
  event_id: Type.String({ description: 'Equal to the webhook-id header; deduplicate on it.' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type RefundNotification = Static<typeof RefundNotificationSchema>;
