// Background workers started by `serve` (delivery of notifications, expiry sweeper).
import type { WorkerFactory } from './app/worker.ts';
import { expirySweeperWorker } from './app/expiry-sweeper.ts';
import { deliveryWorker } from './delivery/delivery-worker.ts';

export const defaultWorkers: WorkerFactory[] = [
  expirySweeperWorker,
  deliveryWorker,
];
