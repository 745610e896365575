// Outbox events (notifications waiting to be delivered): SQL only, no rules.
import type { Trx } from './open-store.ts';

export type NewOutboxEvent = {
  id: string;
  transactionId: string;
  merchantId: string;
  targetUrl: string;
  payload: string;
  createdAt: number;
};

/** Written inside the final-state transaction, so a final state always has its notification. */
export async function insertOutboxEvent(trx: Trx, event: NewOutboxEvent): Promise<void> {
  await trx
    .insertInto('outbox_events')
    .values({
      id: event.id,
      transaction_id: event.transactionId,
      merchant_id: event.merchantId,
      target_url: event.targetUrl,
      payload: event.payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: event.createdAt,
      lease_owner: null,
      lease_expires_at: null,
      series: 1,
      created_at: event.createdAt,
      delivered_at: null,
      last_error: null,
    })
    .execute();
}
