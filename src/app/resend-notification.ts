// Operator use case: deliver a notification again (docs/notifications.md "Resending"). A new
// attempt series with the same event id and body bytes, due now. Running gateways are told at
// once where the store carries wake-ups across instances (PostgreSQL), and find it by their poll
// otherwise.
import { GatewayError } from '../domain/errors.ts';
import type { Store } from './ports/store.ts';

export type Resent = { eventId: string; series: number; previousStatus: string };

export async function resendNotification(
  store: Pick<Store, 'outbox' | 'deliveries'>,
  eventId: string,
  now: number,
): Promise<Resent> {
  const before = await store.outbox.findById(eventId);
  const series = before ? await store.outbox.resend(eventId, now) : undefined;
  if (!before || series === undefined)
    throw new GatewayError('NOT_FOUND', `No notification event with id '${eventId}'.`);
  await store.deliveries.wakeups?.announce('cli').catch(() => {}); // the poll covers a lost wake-up
  return { eventId, series, previousStatus: before.status };
}
