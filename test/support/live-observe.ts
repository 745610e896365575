// What the live-mode fault tests (test/connectors/kbank/*-faults.test.ts, two-instances.test.ts)
// look at after each step, read through the store's ports: the payment's status, its attempts at
// the bank, the merchant's notifications in the outbox (the rows the delivery worker sends), the
// ledger (entries and the merchant's payout balance) and the callbacks recorded. Comparing two
// snapshots shows what changed and, as much, what did not.
import assert from 'node:assert/strict';
import { payoutAccount } from '../../src/domain/ledger.ts';
import type { LiveBase } from './live-gateway.ts';
import type { Started } from './lifecycle.ts';

export type Snapshot = {
  status: string;
  /** The payment's QR attempts: `attempt:state`, oldest first. */
  attempts: string[];
  /** Result notifications of this payment in the outbox (refund notifications apart). */
  resultNotifications: number;
  refundNotifications: number;
  /** Journal entries of the merchant, all payments. */
  ledgerEntries: number;
  /** The merchant's THB payout balance, in 1/10,000. */
  balance: bigint;
  /** Has this payment a journal entry of its own. */
  paymentEntry: boolean;
};

export async function snapshot(gw: LiveBase, p: Started): Promise<Snapshot> {
  const { store } = gw.services;
  const events = (await store.outbox.list({ merchantId: gw.creds.merchantid, limit: 1000 })).filter(
    (e) => e.transactionId === p.transactionid,
  );
  return {
    status: (await gw.transaction(p)).status,
    attempts: (await gw.attempts(p)).filter((a) => a.kind === 'qr').map((a) => `${a.attempt}:${a.state}`),
    resultNotifications: events.filter((e) => e.refundId === null).length,
    refundNotifications: events.filter((e) => e.refundId !== null).length,
    ledgerEntries: await store.ledger.countEntries({ merchantId: gw.creds.merchantid }),
    balance: await store.ledger.balance(payoutAccount(gw.creds.merchantid, 'THB')),
    paymentEntry: (await store.ledger.findEntryByTransaction(p.transactionid)) !== undefined,
  };
}

/** Asserts nothing in the snapshot moved. */
export async function assertUnchanged(gw: LiveBase, p: Started, before: Snapshot, why: string): Promise<void> {
  assert.deepEqual(await snapshot(gw, p), before, why);
}

/** Polls `condition` every 10 ms until it holds; fails after `ms` (no fixed sleeps in the tests). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
