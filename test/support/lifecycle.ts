// Helpers for lifecycle tests: start a payment through the real API and read back every
// row a completion writes (transaction, transitions, outbox, ledger) to compare snapshots.
import assert from 'node:assert/strict';
import { initiationBody, post, type MerchantCredentials, type TestGateway } from './test-gateway.ts';

export type Started = { transactionid: string; redirectId: string; redirectUrl: string; trackid: string };

let counter = 0;

export async function startPayment(
  gw: TestGateway,
  creds: MerchantCredentials,
  overrides: Record<string, unknown> = {},
): Promise<Started> {
  const trackid = `lc-${process.pid}-${++counter}`;
  const res = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid, ...overrides }));
  assert.equal(res.status, 200, res.raw);
  const redirectUrl = res.body.redirectUrl as string;
  return {
    transactionid: res.body.transactionid,
    redirectId: new URL(redirectUrl).searchParams.get('ID')!,
    redirectUrl,
    trackid,
  };
}

/** Everything a completion writes for one transaction, in a comparable form. */
export async function snapshot(gw: TestGateway, transactionId: string) {
  const db = gw.testStore.db;
  const transaction = await db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  const transitions = await gw.services.transactions.transitions(transactionId);
  const outbox = await db
    .selectFrom('outbox_events')
    .select(['id', 'payload'])
    .where('transaction_id', '=', transactionId)
    .execute();
  const entries = await db
    .selectFrom('journal_entries')
    .select('id')
    .where('transaction_id', '=', transactionId)
    .execute();
  return {
    status: transaction.status,
    errorCodeTag: transaction.error_code_tag,
    completedAt: transaction.completed_at === null ? null : Number(transaction.completed_at),
    transitions,
    outbox,
    entries: entries.map((e) => e.id),
  };
}

export async function payoutBalance(gw: TestGateway, merchantId: string): Promise<bigint> {
  return gw.services.ledger.balance({ kind: 'merchant_payout', merchantId, currency: 'THB' });
}
