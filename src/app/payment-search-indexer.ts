// Background worker: keeps the console's payment search table behind the commits by at most
// about a second (docs/architecture.md "Payment search"). Every tick it catches the table up
// with the queue of changes (app/ports/store.ts PaymentSearchIndex); the console's search also
// catches up before it reads, so this worker only keeps the queue short. Several instances may
// run it at once: each batch takes queue rows no other holds.
import type { Logger } from 'pino';
import type { PaymentSearchIndex } from './ports/store.ts';
import { Periodic } from './periodic.ts';
import type { WorkerFactory } from './worker.ts';

/** Between catch-ups: a payment is searchable within this plus one batch's write. */
export const SEARCH_INDEX_INTERVAL_MS = 250;

/** Catches the search table up every `intervalMs` (after the previous catch-up ended). */
export class PaymentSearchIndexer extends Periodic {
  constructor(index: PaymentSearchIndex, intervalMs = SEARCH_INDEX_INTERVAL_MS, logger?: Pick<Logger, 'warn'>) {
    // A failed batch commits nothing and leaves its rows queued for the next tick.
    super(
      () =>
        index
          .catchUp()
          .catch((error: unknown) =>
            logger?.warn({ err: error }, 'payment search indexing failed; retrying on the next tick'),
          ),
      intervalMs,
    );
  }
}

/** Registered in src/workers.ts. */
export const paymentSearchIndexerWorker: WorkerFactory = (services, logger) =>
  new PaymentSearchIndexer(services.store.searchIndex, SEARCH_INDEX_INTERVAL_MS, logger);
