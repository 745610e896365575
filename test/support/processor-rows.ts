// Rows of a payment's life at the processor, written through the store's ports (app/ports/processor-store.ts)
// as the live use cases write them, for the console, CLI and metrics tests while no bank connector runs.
import type { Store } from '../../src/app/ports/store.ts';
import type { AttentionItem, ProcessorAttempt, ProcessorNotification } from '../../src/domain/processor-attempt.ts';

let sequence = 0;
const next = () => String(++sequence).padStart(6, '0');

export async function insertAttempt(
  store: Pick<Store, 'processorAttempts'>,
  transactionId: string,
  overrides: Partial<ProcessorAttempt> = {},
): Promise<ProcessorAttempt> {
  const now = Date.now();
  const attempt: ProcessorAttempt = {
    reference: `KBQR${next()}${Math.random().toString(36).slice(2, 7)}`,
    transactionId,
    connector: 'kbank',
    kind: 'qr',
    attempt: 1,
    state: 'requested',
    stateAt: now,
    qrPayload: '00020101021230',
    expiresAt: now + 600_000,
    accountName: 'Test Shop',
    issuer: 'KBANK',
    processorTxnNo: null,
    paidAmountMinor: null,
    paidAt: null,
    refundId: null,
    parentReference: null,
    lastError: null,
    nextCheckAt: null,
    checks: 0,
    createdAt: now,
    ...overrides,
  };
  if (!(await store.processorAttempts.insert(attempt))) throw new Error(`attempt ${attempt.reference} exists`);
  return attempt;
}

export async function recordNotification(
  store: Pick<Store, 'processorNotifications'>,
  transactionId: string,
  overrides: Partial<ProcessorNotification> = {},
): Promise<ProcessorNotification> {
  const notification: ProcessorNotification = {
    id: `pn_${next()}${Math.random().toString(36).slice(2, 7)}`,
    connector: 'kbank',
    receivedAt: Date.now(),
    sourceIp: '203.0.113.50',
    body: '{"partnerTxnUid":"x","txnStatus":"PAID"}',
    reference: null,
    processorTxnNo: null,
    transactionId,
    outcome: 'checked',
    ...overrides,
  };
  await store.processorNotifications.record(notification, null);
  return notification;
}

export async function raiseAttention(
  store: Pick<Store, 'attention'>,
  transactionId: string,
  overrides: Partial<AttentionItem> = {},
): Promise<AttentionItem> {
  const item: AttentionItem = {
    id: `att_${next()}${Math.random().toString(36).slice(2, 10)}`,
    transactionId,
    kind: 'paid_after_final',
    detail: 'Paid at the processor after the payment ended; this processor cannot void it: transfer it back.',
    amountMinor: 1_000_000n,
    reference: null,
    createdAt: Date.now(),
    resolvedAt: null,
    resolvedBy: null,
    resolution: null,
    ...overrides,
  };
  if (!(await store.attention.raise(item))) throw new Error(`an item of ${transactionId} is open already`);
  return item;
}
