// Claims due events into the origin queues (origin-queues.ts), and decides when to claim.
//
// - Claims visit origins round robin (outbox-claims.repo.ts) and skip a saturated origin without
//   reading its events, so one dead endpoint's backlog delays nobody else.
// - Claim cadence: a claim is a commit, so an origin's queue is refilled in batches, not one
//   event per finished send: a finished send claims again only when its origin has fallen to
//   half its depth (sending + queued) and the last claim left events of it behind, or when the
//   last claim stopped short of every due origin and a batch worth of room is free; a claim
//   skipped for want of room is made once recording frees some. A payment finalised in this
//   process is claimed from its origin directly, beside the main loop (finalised-claims.ts).
//   Anything else that can make work due (NOTIFY, a retry timer, the poll) wakes the worker for
//   a full claim.
import type { Logger } from 'pino';
import type { DeliveryClaims } from './deliver-deps.ts';
import { FinalisedClaims } from './finalised-claims.ts';
import type { OriginQueues, QueueEvents } from './origin-queues.ts';

/** Upper bound on rows taken by one claim, whatever the concurrency setting. */
const CLAIM_BATCH = 64;
/** Claim rounds per wake-up before yielding (each round starts sends). */
const MAX_ROUNDS = 32;

export type ClaimLoopParts = {
  claims: DeliveryClaims;
  queues: OriginQueues;
  /** The instance the leases are taken for. */
  owner: string;
  now: () => number;
  leaseMs: number;
  logger: Logger;
};

export class ClaimLoop implements QueueEvents {
  readonly #parts: ClaimLoopParts;
  #started = false;
  #stopping = false;
  /** Claims wait for this first (SQLite: the release of a dead predecessor's leases). */
  #ready: Promise<void> = Promise.resolve();
  #pumping: Promise<void> | undefined;
  /** A full claim (every due origin, round robin) is wanted: something may have become due. */
  #fullWanted = false;
  /** A refill of origins this instance already sends to is wanted. */
  #refillWanted = false;
  /** Round robin: the next claim visits origins after this one first. */
  #cursor: string | undefined;
  /** Origins whose due events the last claims did not all take (skipped, or their share filled). */
  readonly #leftBehind = new Set<string>();
  /** The last claim stopped before it had looked at every due origin (its limit ran out). */
  #truncated = false;
  /** Claims under way (the main loop's and the finalised events' may overlap), and started so far. */
  #claiming = 0;
  #claimsStarted = 0;
  /** A claim was skipped for want of room (every slot sending, or too much held): claim fully once there is room. */
  #starved = false;
  /** Events finalised in this process, claimed beside the main loop. */
  readonly #finalised: FinalisedClaims;

  constructor(parts: ClaimLoopParts) {
    this.#parts = parts;
    this.#finalised = new FinalisedClaims({
      originsOf: (ids) => parts.claims.originsOf(ids),
      claimFrom: (origins) => this.#pump(origins),
      truncated: () => this.#truncated,
      wake: () => this.wake(),
      logger: parts.logger,
    });
  }

  start(ready: Promise<void>): void {
    this.#started = true;
    this.#ready = ready;
    this.#finalised.start(ready);
  }

  /** No claim starts from now on; settled() waits for those under way. */
  stop(): void {
    this.#stopping = true;
    this.#finalised.stop();
  }

  get busy(): boolean {
    return this.#pumping !== undefined || this.#finalised.busy;
  }

  async settled(): Promise<void> {
    await this.#pumping;
    await this.#finalised.settled();
  }

  /** Looks for due events now. Resolves when this round of claiming is over (sends may go on). */
  wake(): Promise<void> {
    this.#fullWanted = true;
    return this.#kick();
  }

  /** An event was finalised in this process: claim from its origin now. */
  finalised(eventId: string, origin: string | undefined): void {
    this.#finalised.add(eventId, origin);
  }

  givingBack(origin: string): void {
    this.#leftBehind.add(origin);
  }

  givenBack(): void {
    this.#refill();
  }

  slotFreed(origin: string): void {
    // Refill this origin once it is down to half its depth, if the store still has events of it.
    const { queues } = this.#parts;
    if (this.#leftBehind.has(origin) && queues.held(origin) <= queues.depth(origin) / 2) this.#refill();
  }

  roomFreed(): void {
    // Once a batch worth is free: a claim skipped for want of room is made now (nothing else
    // would retry it), or, if the last full claim ran out of room before seeing every due
    // origin, the next one is.
    if (this.#starved) {
      // A claim (a refill or a new event's) was skipped meanwhile; nothing else would retry it.
      this.#starved = false;
      void this.wake();
    } else if (this.#truncated) {
      this.#refill();
    }
  }

  /** Asks for a refill of the origins that are down to half their depth (see "Claim cadence"). */
  #refill(): void {
    this.#refillWanted = true;
    void this.#kick();
  }

  #kick(): Promise<void> {
    if (!this.#started || this.#stopping) return Promise.resolve();
    if (this.#pumping) return this.#pumping;
    this.#pumping = (async () => {
      await this.#ready;
      // Requests that arrive while a claim runs are served by the next turn of this loop.
      while ((this.#fullWanted || this.#refillWanted) && !this.#stopping) {
        // Targeted refills only while the last full claim saw every due origin; otherwise
        // other origins may be waiting, and only a full claim visits them in turn.
        const full = this.#fullWanted || this.#truncated;
        this.#fullWanted = false;
        this.#refillWanted = false;
        const targets = full ? undefined : this.#refillable();
        if (targets?.length === 0) continue;
        try {
          await this.#pump(targets);
        } catch (error) {
          this.#parts.logger.error({ err: error }, 'claiming due deliveries failed; retrying on the next wake-up');
          break;
        }
      }
    })().finally(() => {
      this.#pumping = undefined;
      // A request made between the loop's last check and now would otherwise wait for the poll.
      if ((this.#fullWanted || this.#refillWanted) && !this.#stopping) void this.#kick();
    });
    return this.#pumping;
  }

  /** Origins the store still has events of that are down to half their depth. */
  #refillable(): string[] {
    const { queues } = this.#parts;
    return [...this.#leftBehind].filter((origin) => queues.held(origin) <= queues.depth(origin) / 2);
  }

  /** Claims and starts sends: a full claim, or (`targets`) a refill of those origins only. */
  async #pump(targets?: string[]): Promise<void> {
    const { claims, queues, owner } = this.#parts;
    for (let round = 0; round < MAX_ROUNDS && !this.#stopping; round++) {
      queues.startQueued();
      const room = queues.room();
      if (queues.sendSlotsFull || room <= 0) {
        this.#starved = true;
        return;
      }
      // What is leased either starts now or waits in its origin's queue: per origin no more than
      // its depth, sending and queued together. An origin still above half its depth is
      // skipped: it has enough to send, and topping it up one event at a time would cost a
      // commit per send. Nothing here awaits between the claim and the launches, so the
      // allowances still hold when the sends start.
      const claimedAt = this.#parts.now();
      const startedAsClaim = ++this.#claimsStarted;
      const aloneAtStart = this.#claiming++ === 0;
      const claimed = await claims
        .claim({
          owner,
          now: claimedAt,
          leaseMs: this.#parts.leaseMs,
          limit: Math.min(CLAIM_BATCH, room),
          allowance: (origin) => {
            const held = queues.held(origin);
            const depth = queues.depth(origin);
            return held > depth / 2 ? 0 : depth - held;
          },
          ...(targets ? { origins: targets } : this.#cursor !== undefined && { after: this.#cursor }),
        })
        .finally(() => this.#claiming--);
      if (!targets) {
        this.#cursor = claimed.lastOrigin;
        this.#truncated = claimed.truncated;
      }
      for (const origin of claimed.leftBehind) this.#leftBehind.add(origin);
      // A short take proves an origin has nothing more only if no other claim of ours ran
      // meanwhile: PostgreSQL's SKIP LOCKED passes over rows another claim is taking.
      if (aloneAtStart && startedAsClaim === this.#claimsStarted)
        for (const origin of claimed.exhausted) this.#leftBehind.delete(origin);
      if (claimed.events.length > 0 && this.#stopping) {
        await claims.release(
          claimed.events.map((e) => e.id),
          owner,
        );
        return;
      }
      queues.enqueue(claimed.events, claimedAt);
      queues.startQueued();
      // Another round only if this (full) claim did not get to every due origin.
      if (targets || !claimed.truncated) return;
    }
  }
}
