// The result notification body (docs/notifications.md, "The request"). Built once, when the final
// state is written, and stored as bytes in the outbox so every retry sends exactly the same body.
// Its shape is PaymentNotificationSchema (domain/wire/notifications.ts), published in /openapi.json.
import type { FailureTag, TransactionStatus } from './lifecycle.ts';
import { RESPONSE_CODE, RESULT_TEXT } from './lifecycle.ts';
import { currencyExponent, formatMinor } from './money.ts';
import type { PayerCheck } from './payer-check.ts';
import type { PaymentNotification } from './wire/notifications.ts';

export type NotificationInput = {
  eventId: string;
  transactionId: string;
  merchantId: string;
  trackid: string;
  token: string;
  amountMinor: bigint;
  currency: string;
  paymentMethod: string;
  status: Exclude<TransactionStatus, 'PROCESSING'>;
  errorCodeTag: FailureTag | null;
  errorText: string | null;
  createdAt: number;
  /** The payer check's verdict; null: the field is left out, so the body is as before it existed. */
  payerCheck: PayerCheck | null;
};

export function notificationBody(n: NotificationInput): string {
  const body: PaymentNotification = {
    type: 'valid',
    result: RESULT_TEXT[n.status],
    responsecode: RESPONSE_CODE[n.status],
    trackid: n.trackid,
    merchantid: n.merchantId,
    transactionid: n.transactionId,
    token: n.token,
    bill_amount: formatMinor(n.amountMinor, currencyExponent(n.currency)),
    bill_currencycode: n.currency,
    payment_method: n.paymentMethod,
    error_code_tag: n.errorCodeTag,
    error_text: n.errorText,
    event_id: n.eventId,
    created_at: new Date(n.createdAt).toISOString(),
    ...(n.payerCheck !== null && { payer_check: n.payerCheck }),
  };
  return JSON.stringify(body);
}
