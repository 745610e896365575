// Operator use case: deliver an event again (contract §5 "an operator can resend it").
// A new attempt series with the same event id and body bytes, due now; running gateways are
// told at once on PostgreSQL (NOTIFY) and find it by their poll on SQLite.
import { GatewayError } from '../domain/errors.ts';
import type { StoreEngine } from '../store/engine.ts';
import { OutboxRepo } from '../store/repos/outbox.repo.ts';
import { notifyOutbox } from '../store/postgres/wakeups.ts';

export async function resendDelivery(
  store: StoreEngine,
  eventId: string,
  now: number,
): Promise<{ eventId: string; series: number; previousStatus: string }> {
  const repo = new OutboxRepo(store.db, store.dialect);
  const before = await repo.findById(eventId);
  const series = before ? await repo.resend(eventId, now) : undefined;
  if (!before || series === undefined)
    throw new GatewayError('NOT_FOUND', `No notification event with id '${eventId}'.`);
  if (store.pgPool) await notifyOutbox(store.pgPool, 'cli').catch(() => {}); // the poll covers a lost NOTIFY
  return { eventId, series, previousStatus: before.status };
}
