// Background workers started by `serve` (delivery of notifications, expiry sweeper, reconciler,
// the payment search indexer).
import type { Config } from './config.ts';
import type { WorkerFactory } from './app/worker.ts';
import { expirySweeperWorker } from './app/expiry-sweeper.ts';
import { deliveryWorker } from './delivery/delivery-worker.ts';
import { outboxNotifierWorker } from './delivery/outbox-notifier-worker.ts';
import { paymentSearchIndexerWorker } from './app/payment-search-indexer.ts';

/**
 * The reconciler of live payments (app/processor/reconciler.ts), in every `serve` whose processor
 * builds the QR: a payment whose notification was lost is found by it.
 */
export const reconcilerWorker: WorkerFactory = (services) => {
  const { connector, reconciler } = services.processor;
  if (connector().capabilities.qr !== 'processor') return { start() {}, async stop() {} };
  return reconciler;
};

/**
 * The expiry sweeper, the reconciler and the search indexer always; the delivery worker unless DELIVERY_WORKER=false
 * (PostgreSQL, with `deliver` processes beside), in which case this process only wakes them after
 * each payment.
 */
export function workersFor(config: Pick<Config, 'deliveryWorker'>): WorkerFactory[] {
  return [
    expirySweeperWorker,
    reconcilerWorker,
    paymentSearchIndexerWorker,
    config.deliveryWorker ? deliveryWorker : outboxNotifierWorker,
  ];
}
