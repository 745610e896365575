// The reconciler (docs/connectors/kbank.md "Reconciler"): asks the processor about every open
// attempt on a back-off schedule (check-schedule.ts) and applies its answer (sync-payment.ts), so
// a lost notification delays a payment by seconds, not forever, and an attempt whose outcome was
// unknown (a create or void that was not answered, a crash before our write) is settled.
//
// - One inquirer per attempt across instances: attempts are leased (ProcessorAttemptStore.claimDue,
//   FOR UPDATE SKIP LOCKED on PostgreSQL); a lease of a dead instance expires.
// - Bounded: at most `perSecond` queries a second from this instance, one at a time.
// - Woken by a notification's hint (checkSoon) and by a timer for the next due check; a poll
//   covers everything else.
import type { Logger } from 'pino';
import type { ProcessorAttempt } from '../../domain/processor-attempt.ts';
import { ProcessorMismatch, ProcessorUnavailable } from '../../domain/processor-errors.ts';
import type { AttemptChanges, ProcessorAttemptStore } from '../ports/processor-store.ts';
import type { ProcessorConnector } from '../ports/processor.ts';
import type { PaymentStore } from '../ports/store.ts';
import type { Worker } from '../worker.ts';
import type { SyncPayment } from './sync-payment.ts';

const BATCH = 20;
const LEASE_MS = 60_000;
/** After a failed check (processor unreachable, a mismatch): look again in a minute. */
const RETRY_MS = 60_000;

export type ReconcilerDeps = {
  connector: () => ProcessorConnector;
  attempts: Pick<ProcessorAttemptStore, 'claimDue' | 'release' | 'nextCheckAt' | 'update'>;
  payments: Pick<PaymentStore, 'get'>;
  sync: Pick<SyncPayment, 'apply' | 'applyVoid'>;
  now: () => number;
  owner: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Queries a second at most. */
  perSecond: number;
  /** The fallback poll. */
  pollMs: number;
};

export class Reconciler implements Worker {
  readonly #deps: ReconcilerDeps;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #poll: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastQueryAt = 0;

  constructor(deps: ReconcilerDeps) {
    this.#deps = deps;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#poll = setInterval(() => void this.wake(), this.#deps.pollMs);
    this.#poll.unref();
    void this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll) clearInterval(this.#poll);
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** Makes `reference` due now and looks (a notification named it). */
  async checkSoon(reference: string): Promise<void> {
    await this.#deps.attempts.update(reference, { nextCheckAt: this.#deps.now() });
    void this.wake();
  }

  /** Checks what is due now; resolves when this round is over (tests await it). */
  wake(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#rounds().finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#stopped) void this.wake();
    });
    return this.#running;
  }

  async #rounds(): Promise<void> {
    do {
      this.#again = false;
      try {
        let claimed: ProcessorAttempt[];
        do {
          claimed = await this.#deps.attempts.claimDue(this.#deps.owner, this.#deps.now(), LEASE_MS, BATCH);
          for (const attempt of claimed) {
            if (this.#stopped) break;
            await this.#check(attempt);
          }
        } while (claimed.length === BATCH && !this.#stopped);
        await this.#timeNext();
      } catch (error) {
        this.#deps.logger.error({ err: error }, 'reconciling processor attempts failed; retrying on the next poll');
      }
    } while (this.#again && !this.#stopped);
  }

  async #check(attempt: ProcessorAttempt): Promise<void> {
    const { attempts, owner, now, logger } = this.#deps;
    let changes: AttemptChanges;
    try {
      changes = await this.#settle(attempt);
    } catch (error) {
      const known = error instanceof ProcessorUnavailable || error instanceof ProcessorMismatch;
      if (!known) logger.error({ err: error, reference: attempt.reference }, 'checking a processor attempt failed');
      else logger.info({ reference: attempt.reference, error: (error as Error).message }, 'processor check failed');
      changes = { nextCheckAt: now() + RETRY_MS, lastError: error instanceof Error ? error.message : String(error) };
    }
    await attempts.release(attempt.reference, owner, changes);
  }

  /** Queries the processor about one attempt and applies the answer; returns the attempt's changes. */
  async #settle(attempt: ProcessorAttempt): Promise<AttemptChanges> {
    const transaction = await this.#deps.payments.get(attempt.transactionId);
    if (!transaction) return { nextCheckAt: null, lastError: 'no such transaction' };
    const connector = this.#deps.connector();
    await this.#pace();
    if (attempt.kind === 'void') {
      // A void is asked about through the payment it voids (only a processor that voids has
      // voids, and it finds a payment by its reference alone).
      const status = await connector.queryPayment(attempt.parentReference ?? attempt.reference, attempt.createdAt);
      return this.#deps.sync.applyVoid(transaction, attempt, status);
    }
    const status = await connector.queryPayment(attempt.reference, attempt.createdAt);
    if (
      attempt.kind === 'qr' &&
      attempt.state === 'pending' &&
      status.state === 'requested' &&
      connector.capabilities.cancel
    ) {
      // Created, but its QR text never reached us: nobody saw it, so nobody may pay it. (Without
      // cancel it stays requested and is checked until the processor reports it expired.)
      const outcome = await connector.cancelPayment(attempt.reference);
      if (outcome === 'cancelled') {
        return { state: 'cancelled', stateAt: this.#deps.now(), nextCheckAt: null, checks: attempt.checks + 1 };
      }
      const now = await connector.queryPayment(attempt.reference, attempt.createdAt);
      return (await this.#deps.sync.apply(transaction, attempt, now)).changes;
    }
    return (await this.#deps.sync.apply(transaction, attempt, status)).changes;
  }

  /** At most `perSecond` queries a second. */
  async #pace(): Promise<void> {
    const gap = 1000 / this.#deps.perSecond;
    const wait = this.#lastQueryAt + gap - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.#lastQueryAt = Date.now();
  }

  /** One timer for the earliest next check, so a due check does not wait for the poll. */
  async #timeNext(): Promise<void> {
    const at = await this.#deps.attempts.nextCheckAt();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (at === null || this.#stopped) return;
    const delay = Math.max(0, at - this.#deps.now());
    if (delay >= this.#deps.pollMs) return;
    this.#timer = setTimeout(() => void this.wake(), delay + 5);
    this.#timer.unref();
  }
}
