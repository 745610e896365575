// The result notification's bytes (domain/notification.ts, docs/notifications.md): without a payer
// check verdict they are exactly what they were before the field existed (merchants may compare
// or store them); with one, `payer_check` comes last and nothing else moves. The status answer
// likewise carries `payer_check` only once there is a verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notificationBody, type NotificationInput } from '../../src/domain/notification.ts';
import { statusOf } from '../../src/domain/responses.ts';
import type { TransactionRecord } from '../../src/domain/transaction.ts';

const INPUT: NotificationInput = {
  eventId: 'evt_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6',
  transactionId: 'txn_0193b2c4d5e6',
  merchantId: 'shop-1',
  trackid: 'order-42',
  token: 'tok_abc',
  amountMinor: 1_500_000n,
  currency: 'THB',
  paymentMethod: 'THAI_DEBIT',
  status: 'SUCCESS',
  errorCodeTag: null,
  errorText: null,
  createdAt: Date.parse('2026-01-05T03:00:00.000Z'),
  payerCheck: null,
};

const BEFORE =
  '{"type":"valid","result":"CAPTURED","responsecode":"0","trackid":"order-42","merchantid":"shop-1",' +
  '"transactionid":"txn_0193b2c4d5e6","token":"tok_abc","bill_amount":"150.00","bill_currencycode":"THB",' +
  '"payment_method":"THAI_DEBIT","error_code_tag":null,"error_text":null,' +
  '"event_id":"evt_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6","created_at":"2026-01-05T03:00:00.000Z"}';

test('no verdict: the notification is byte for byte the body without the field', () => {
  assert.equal(notificationBody(INPUT), BEFORE);
});

test('a verdict: `payer_check` last, everything before it unchanged', () => {
  for (const verdict of ['matched', 'mismatched', 'unknown'] as const)
    assert.equal(
      notificationBody({ ...INPUT, payerCheck: verdict }),
      `${BEFORE.slice(0, -1)},"payer_check":"${verdict}"}`,
    );
});

test('the status answer carries `payer_check` only once there is a verdict', () => {
  const t = {
    id: 'txn_1',
    merchantId: 'shop-1',
    trackid: 'order-42',
    token: 'tok_abc',
    redirectId: 'r1',
    status: 'SUCCESS',
    errorCodeTag: null,
    errorText: null,
    amountMinor: 1_500_000n,
    currency: 'THB',
    createdAt: 0,
    completedAt: 1,
    refundedMinor: 0n,
    payerCheck: null,
  } satisfies Partial<TransactionRecord>;
  assert.ok(!('payer_check' in statusOf(t, 'https://pay.example')));
  assert.ok(!JSON.stringify(statusOf(t, 'https://pay.example')).includes('payer_check'));
  assert.equal(statusOf({ ...t, payerCheck: 'matched' }, 'https://pay.example').payer_check, 'matched');
});
