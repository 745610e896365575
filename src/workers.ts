// Background workers started by `serve` (delivery of notifications, expiry sweeper).
import type { WorkerFactory } from './server.ts';

export const defaultWorkers: WorkerFactory[] = [];
