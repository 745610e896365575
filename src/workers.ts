// Background workers started by `serve` (delivery of notifications, expiry sweeper).
import type { Config } from './config.ts';
import type { WorkerFactory } from './app/worker.ts';
import { expirySweeperWorker } from './app/expiry-sweeper.ts';
import { deliveryWorker } from './delivery/delivery-worker.ts';
import { outboxNotifierWorker } from './delivery/outbox-notifier-worker.ts';

/**
 * The expiry sweeper always; the delivery worker unless DELIVERY_WORKER=false (PostgreSQL, with
 * `deliver` processes beside), in which case this process only wakes them after each payment.
 */
export function workersFor(config: Pick<Config, 'deliveryWorker'>): WorkerFactory[] {
  return [expirySweeperWorker, config.deliveryWorker ? deliveryWorker : outboxNotifierWorker];
}
