// Background worker: finalises PROCESSING transactions whose TTL has passed (docs/api.md
// "Lifecycle"), through the same `complete` use case as every other ending, so expiry writes the
// same transition, ledger and outbox rows. Safe with several instances sweeping at once: the use
// case locks the row, and a transaction another instance finalised first answers INVALID_STATE,
// which a sweeper simply skips.
import type { Logger } from 'pino';
import { isGatewayError } from '../domain/errors.ts';
import type { PaymentStore } from './ports/store.ts';
import { Periodic } from './periodic.ts';
import type { Worker, WorkerFactory } from './worker.ts';
import type { CloseResult } from './processor/close-payment.ts';

export type ExpirySweeperDeps = {
  transactions: Pick<PaymentStore, 'findExpired'>;
  /**
   * Ends one payment by expiry (processor/end-payment.ts): 'open' when its processor could not be
   * asked to close its QR (the payment stays PROCESSING and the next sweep tries again), 'paid'
   * when the processor had been paid (it ended SUCCESS instead).
   */
  expire: (transactionId: string) => Promise<CloseResult>;
  now: () => number;
  intervalMs: number;
  logger?: Pick<Logger, 'warn' | 'error' | 'info'>;
  /** Rows read per query; a sweep reads at most `batchSize * maxBatches` rows (a limit on everything). */
  batchSize?: number;
  maxBatches?: number;
};

export type SweepResult = { expired: number; alreadyFinal: number; failed: number };

export class ExpirySweeper implements Worker {
  readonly #deps: Required<Omit<ExpirySweeperDeps, 'logger'>> & Pick<ExpirySweeperDeps, 'logger'>;
  /** A sweep at once, then one `intervalMs` after each ends. */
  readonly #loop: Periodic;

  constructor(deps: ExpirySweeperDeps) {
    this.#deps = { batchSize: 100, maxBatches: 50, ...deps };
    this.#loop = new Periodic(() => this.#tick(), this.#deps.intervalMs, 0);
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop(); // let the sweep in flight finish its current transaction
  }

  /** One pass over everything expired at this moment of the injected clock. */
  async sweepOnce(): Promise<SweepResult> {
    const { transactions, expire, now, batchSize, maxBatches, logger } = this.#deps;
    const result: SweepResult = { expired: 0, alreadyFinal: 0, failed: 0 };
    const cutoff = now();
    const failedIds = new Set<string>();
    for (let batch = 0; batch < maxBatches; batch++) {
      const ids = (await transactions.findExpired(cutoff, batchSize + failedIds.size)).filter(
        (id) => !failedIds.has(id),
      );
      for (const id of ids.slice(0, batchSize)) {
        try {
          const ended = await expire(id);
          if (ended === 'closed') result.expired++;
          else if (ended === 'paid') result.alreadyFinal++;
          // Open: never expired blind while the processor may still take money; next pass.
          else failedIds.add(id);
        } catch (error) {
          if (isGatewayError(error) && error.tag === 'INVALID_STATE') {
            result.alreadyFinal++; // another instance (or the customer) got there first
            continue;
          }
          // Not retried in this pass, so one broken row cannot stall the sweep; next pass tries again.
          failedIds.add(id);
          result.failed++;
          logger?.error({ err: error, transactionId: id }, 'expiry of a transaction failed');
        }
      }
      if (ids.length < batchSize) break;
    }
    return result;
  }

  #tick(): Promise<void> {
    return this.sweepOnce()
      .then((r) => {
        if (r.expired > 0) this.#deps.logger?.info({ expired: r.expired }, 'expired transactions finalised');
      })
      .catch((error: unknown) =>
        this.#deps.logger?.warn({ err: error }, 'expiry sweep failed; retrying on the next tick'),
      );
  }
}

/** Registered in src/workers.ts; uses the gateway's clock and EXPIRY_SWEEP_INTERVAL. */
export const expirySweeperWorker: WorkerFactory = (services, logger) =>
  new ExpirySweeper({
    transactions: services.transactions,
    expire: (id) => services.processor.end.expire(id),
    now: services.now,
    intervalMs: services.config.sweepIntervalMs,
    logger,
  });
