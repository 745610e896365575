// The notification worker (docs/notifications.md, "How it works"): claims due outbox events, signs
// and POSTs them, records every attempt and schedules the next one on the retry ladder. This file
// wires the parts and owns start, stop and idle:
// - claim-loop.ts: what is claimed, and when; finalised-claims.ts: this process's new events at once;
// - origin-queues.ts: leased events per origin, send slots and pacing;
// - send-attempt.ts: one attempt (sign, send, record);
// - wakeups.ts: the poll, the retry timer and other instances' NOTIFY;
// - deliver-deps.ts: what all of them get from the rest of the gateway.
// Ownership: a claim leases the event to this instance (store/repos/outbox-claims.repo.ts; PostgreSQL
// claims use FOR UPDATE SKIP LOCKED), so instances never share an event in flight. A crashed
// instance's leases expire and another instance (or its own restart) takes over.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Services } from '../app/services.ts';
import type { Worker, WorkerFactory } from '../app/worker.ts';
import { ClaimLoop } from './claim-loop.ts';
import { deliveryDepsFrom, type DeliveryDeps, type FinalisedListener } from './deliver-deps.ts';
import { OriginQueues } from './origin-queues.ts';
import { SendAttempt, type SendAttemptOptions } from './send-attempt.ts';
import { Wakeups } from './wakeups.ts';

export { UNREACHABLE_HOLD_MS } from './origin-queues.ts';

export type DeliveryWorkerOptions = SendAttemptOptions & { instanceId?: string };

export function newInstanceId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
}

export class DeliveryWorker implements Worker {
  readonly instanceId: string;
  readonly #deps: DeliveryDeps;
  readonly #logger: Logger;
  readonly #attempts: SendAttempt;
  readonly #queues: OriginQueues;
  readonly #loop: ClaimLoop;
  readonly #wakeups: Wakeups;
  #started = false;
  #stopping: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #onFinalised: FinalisedListener = (_transactionId, eventId, origin) => {
    this.#loop.finalised(eventId, origin);
    this.#wakeups.notifyOthers();
  };

  constructor(services: Services, logger: Logger, options: DeliveryWorkerOptions = {}) {
    this.#logger = logger.child({ component: 'delivery' });
    this.instanceId = options.instanceId ?? newInstanceId();
    const deps = deliveryDepsFrom(services, this.instanceId, this.#logger);
    const { claims, now, settings } = deps;
    const owner = this.instanceId;
    const log = this.#logger;
    this.#deps = deps;
    this.#attempts = new SendAttempt({ deps, owner, retryAt: (at) => this.#wakeups.wakeAt(at), logger: log }, options);
    this.#queues = new OriginQueues({
      settings,
      now,
      send: (event, sent) => this.#attempts.deliver(event, sent),
      giveBack: (ids) => claims.release(ids, owner),
      events: {
        givingBack: (origin) => this.#loop.givingBack(origin),
        givenBack: () => this.#loop.givenBack(),
        slotFreed: (origin) => this.#loop.slotFreed(origin),
        roomFreed: () => this.#loop.roomFreed(),
      },
      logger: log,
    });
    this.#loop = new ClaimLoop({ claims, queues: this.#queues, owner, now, leaseMs: settings.leaseMs, logger: log });
    this.#wakeups = new Wakeups({
      claims,
      wakeups: deps.wakeups,
      pollIntervalMs: settings.pollIntervalMs,
      now,
      wake: () => this.wake(),
      logger: log,
    });
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#unsubscribe = this.#deps.onFinalised(this.#onFinalised);
    let ready = Promise.resolve();
    if (this.#deps.releaseAllAtStart) {
      // One process per SQLite file: leases still set belong to a predecessor that died.
      ready = this.#deps.claims.releaseAll().then(
        (n) => {
          if (n > 0) this.#logger.warn({ released: n }, 'released deliveries leased by a previous run');
        },
        (error) => this.#logger.error({ err: error }, 'could not release stale delivery leases'),
      );
    }
    this.#loop.start(ready);
    this.#wakeups.start();
  }

  /** Looks for due events now. Resolves when this round of claiming is over (sends may go on). */
  wake(): Promise<void> {
    return this.#loop.wake();
  }

  /** Resolves once nothing is being claimed or sent (tests use it instead of sleeping). */
  async idle(): Promise<void> {
    while (this.#loop.busy || this.#queues.busy) {
      await this.#loop.settled();
      await this.#queues.settled();
    }
  }

  get inFlight(): number {
    return this.#queues.inFlight;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    this.#unsubscribe?.();
    this.#loop.stop();
    this.#queues.stop();
    await this.#wakeups.stop();
    await this.#loop.settled();
    await this.#queues.drained();
    this.#attempts.close();
    if (!this.#started) return;
    // Queued events never start now; their leases go back with the rest.
    this.#queues.clear();
    try {
      await this.#deps.claims.releaseAllOf(this.instanceId);
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not release delivery leases; they expire on their own');
    }
  }
}

export const deliveryWorker: WorkerFactory = (services, logger) => new DeliveryWorker(services, logger);
