// Background worker: keeps the console's payment search table behind the commits by at most
// about a second (docs/architecture.md "Payment search"). Every tick it catches the table up
// with the queue of changes (app/ports/store.ts PaymentSearchIndex); the console's search also
// catches up before it reads, so this worker only keeps the queue short. Several instances may
// run it at once: each batch takes queue rows no other holds.
import type { Logger } from 'pino';
import type { PaymentSearchIndex } from './ports/store.ts';
import type { Worker, WorkerFactory } from './worker.ts';

/** Between catch-ups: a payment is searchable within this plus one batch's write. */
export const SEARCH_INDEX_INTERVAL_MS = 250;

export class PaymentSearchIndexer implements Worker {
  readonly #index: PaymentSearchIndex;
  readonly #intervalMs: number;
  readonly #logger: Pick<Logger, 'warn'> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(index: PaymentSearchIndex, intervalMs = SEARCH_INDEX_INTERVAL_MS, logger?: Pick<Logger, 'warn'>) {
    this.#index = index;
    this.#intervalMs = intervalMs;
    this.#logger = logger;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running; // its batch commits or rolls back whole; what is left stays queued
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#index
        .catchUp()
        .catch((error: unknown) =>
          this.#logger?.warn({ err: error }, 'payment search indexing failed; retrying on the next tick'),
        )
        .finally(() => this.#schedule());
    }, this.#intervalMs);
    this.#timer.unref(); // must not keep a CLI command or a test alive
  }
}

/** Registered in src/workers.ts. */
export const paymentSearchIndexerWorker: WorkerFactory = (services, logger) =>
  new PaymentSearchIndexer(services.store.searchIndex, SEARCH_INDEX_INTERVAL_MS, logger);
