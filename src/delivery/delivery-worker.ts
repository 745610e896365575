// The notification worker (contract §5): claims due outbox events, signs and POSTs them,
// records every attempt and schedules the next one on the retry ladder.
//
// - Ownership: a claim leases the event to this instance (outbox.repo.ts); PostgreSQL claims
//   use FOR UPDATE SKIP LOCKED, so instances never share an event in flight. A crashed
//   instance's leases expire and another instance (or its own restart) takes over.
//   At-least-once: a crash between the send and the record repeats the send, same webhook-id.
// - Wake-ups: in-process on every finalised payment, LISTEN/NOTIFY from other instances, a
//   timer for our own retries, and a poll as the fallback for everything else.
// - Fairness: at most `deliveryConcurrency` sends in flight, and at most
//   `deliveryPerHostConcurrency` to one origin, so one slow merchant endpoint cannot occupy
//   every slot. A slot is free as soon as its HTTP exchange ends; recording the attempt is group
//   committed (attempt-recorder.ts) and does not hold a slot, so the batches grow with the load
//   instead of the sends waiting for each commit. What this instance holds at once (queued,
//   sending and not yet recorded) is bounded by `deliveryConcurrency` × MAX_ROUNDS_AHEAD.
//   Claims visit origins round robin (outbox-claims.repo.ts) and skip a saturated origin without
//   reading its events, so one dead endpoint's backlog delays nobody else.
// - Lease ahead: a claim may lease several rounds of an origin's per-host cap (its depth). What
//   cannot start at once waits in that origin's local queue and starts the moment one of its
//   sends ends, without a claim (a claim is a commit) between two sends. The depth follows the
//   origin's pace: PREFETCH_ROUNDS rounds until its sends have been timed, then as many rounds
//   (MIN_ROUNDS to MAX_ROUNDS_AHEAD) as it gets through in a quarter of the lease, so a fast
//   endpoint's queue covers the time a claim takes and a slow one's is never held for long.
//   The caps above still bound what is *sent*; a queued event whose lease is half gone is given
//   back, not sent late.
//   At-least-once is unchanged: a queued event is still pending in the store, and a crash or
//   stop gives its lease back (stop) or lets it expire (SQLite releases every lease at start).
// - Claim cadence: a claim is a commit, so an origin's queue is refilled in batches, not one
//   event per finished send: a finished send claims again only when its origin has fallen to
//   half its depth (sending + queued) and the last claim left events of it behind, or when the
//   last claim stopped short of every due origin and a batch worth of room is free; a claim
//   skipped for want of room is made once recording frees some. A payment finalised in this
//   process is claimed from its origin directly, beside the main loop (#claimFinalised).
//   Anything else that can make work due (NOTIFY, a retry timer, the poll) wakes the worker for
//   a full claim as before.
// - Connections: sends reuse keep-alive connections per origin (http-sender.ts explains why that
//   keeps the outbound policy intact and what a stale connection does); retries open new ones.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Services } from '../app/services.ts';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import type { Worker, WorkerFactory } from '../app/worker.ts';
import { type OutboxEvent } from '../domain/outbox-event.ts';
import type { DeliveryStore } from '../app/ports.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import type { Resolver } from './guarded-lookup.ts';
import { NotificationSender, type SendOutcome } from './http-sender.ts';
import { OpenedSecrets, notificationHeaders, signingSecrets } from './notification-request.ts';
import { nextTransition, type AttemptResult, type ScheduleOptions } from './retry-schedule.ts';
import { gatewayUserAgent } from './user-agent.ts';

/** Upper bound on rows taken by one claim, whatever the concurrency setting. */
const CLAIM_BATCH = 64;
/** Claim rounds per wake-up before yielding (each round starts sends). */
const MAX_ROUNDS = 32;
/** Events of one origin leased at most, until its pace is known: this many times its per-host cap. */
const PREFETCH_ROUNDS = 4;
/** Bounds on the rounds leased ahead once the pace is known. */
const MIN_ROUNDS = 2;
const MAX_ROUNDS_AHEAD = 16;
/** Origins whose pace is remembered at most (the memo starts over past this). */
const MAX_PACES = 10_000;
/**
 * How long an origin's send slot stays taken after an attempt that got no HTTP answer (refused,
 * unreachable, timed out): with the per-host cap of 4, a dead endpoint gets at most 16 attempts
 * a second, whatever its backlog (see #launch).
 */
export const UNREACHABLE_HOLD_MS = 250;

export type DeliveryWorkerOptions = {
  instanceId?: string;
  /** Overrides the policy derived from the configuration (tests of live mode). */
  policy?: OutboundPolicy;
  /** Fake DNS for tests; the system resolver otherwise. */
  resolver?: Resolver;
  /** Uniform [0, 1) for jitter. */
  random?: () => number;
};

export function newInstanceId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
}

export class DeliveryWorker implements Worker {
  readonly instanceId: string;
  readonly #services: Services;
  readonly #logger: Logger;
  readonly #claims: DeliveryStore;
  readonly #recorder: AttemptRecorder;
  readonly #sender: NotificationSender;
  readonly #opened: OpenedSecrets;
  readonly #schedule: ScheduleOptions;
  readonly #userAgent = gatewayUserAgent();

  /** Launched and not yet recorded (sending, or waiting for the attempt's commit). */
  readonly #inflight = new Map<string, Promise<void>>();
  /** HTTP exchanges under way (the `deliveryConcurrency` slots). */
  #sending = 0;
  /** Sends in flight (HTTP exchange not over yet) per origin. */
  readonly #perOrigin = new Map<string, number>();
  /** Leased ahead, not started yet, per origin (oldest first), with when each was claimed. */
  readonly #queued = new Map<string, Array<{ event: OutboxEvent; claimedAt: number }>>();
  #queuedCount = 0;
  /** Round robin: the next claim visits origins after this one first. */
  #cursor: string | undefined;
  /** Origins whose due events the last claims did not all take (skipped, or their share filled). */
  readonly #leftBehind = new Set<string>();
  /** The last claim stopped before it had looked at every due origin (its limit ran out). */
  #truncated = false;
  /** Claims of this worker under way (the main loop's and the finalised events' may overlap), and started so far. */
  #claiming = 0;
  #claimsStarted = 0;
  /** A claim was skipped for want of room (every slot sending, or too much held): claim fully once there is room. */
  #starved = false;
  /** Origin slots kept after an attempt that got no answer, until UNREACHABLE_HOLD_MS has passed (see #launch). */
  readonly #holds = new Set<Promise<void>>();
  /** Recent milliseconds per HTTP exchange, per origin (moving average). */
  readonly #pace = new Map<string, number>();

  #started = false;
  #stopping: Promise<void> | undefined;
  #ready: Promise<void> = Promise.resolve();
  #pumping: Promise<void> | undefined;
  /** A full claim (every due origin, round robin) is wanted: something may have become due. */
  #fullWanted = false;
  /** A refill of origins this instance already sends to is wanted. */
  #refillWanted = false;
  #poll: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryTimerAt = Infinity;
  #listener: { stop(): Promise<void> } | undefined;
  #notifier: { notify(): void; stop(): void } | undefined;
  /** Events finalised in this process since the last claim: their origins are claimed from directly. */
  readonly #finalised = new Set<string>();
  /** The origins of such events when the finalisation said where they go (then their ids are not read back). */
  readonly #finalisedOrigins = new Set<string>();
  /** The claim for events finalised here, which runs beside the main claim loop. */
  #claimingFinalised: Promise<void> | undefined;
  readonly #onFinalised = (_transactionId: string, eventId: string, origin?: string) => {
    if (origin === undefined) this.#finalised.add(eventId);
    else this.#finalisedOrigins.add(origin);
    this.#claimFinalised();
    this.#notifyOthers();
  };

  constructor(services: Services, logger: Logger, options: DeliveryWorkerOptions = {}) {
    this.#services = services;
    this.#logger = logger.child({ component: 'delivery' });
    this.#claims = services.store.deliveries;
    this.#recorder = new AttemptRecorder(services.store.deliveries.recordAttempts);
    this.instanceId = options.instanceId ?? newInstanceId();
    this.#sender = new NotificationSender({
      policy: options.policy ?? services.outboundPolicy,
      ...(options.resolver && { resolver: options.resolver }),
    });
    this.#opened = new OpenedSecrets(services.key);
    this.#schedule = {
      ladderMs: services.config.retryLadderMs,
      jitterPercent: services.config.deliveryJitterPercent,
      random: options.random ?? Math.random,
    };
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { store, config } = this.#services;
    this.#services.finalisedListeners.push(this.#onFinalised);
    if (store.deliveries.singleProcess) {
      // One process per SQLite file: leases still set belong to a predecessor that died.
      this.#ready = this.#claims.releaseAll().then(
        (n) => {
          if (n > 0) this.#logger.warn({ released: n }, 'released deliveries leased by a previous run');
        },
        (error) => this.#logger.error({ err: error }, 'could not release stale delivery leases'),
      );
    } else if (store.deliveries.wakeups) {
      this.#listener = store.deliveries.wakeups.listen(this.instanceId, () => void this.wake(), this.#logger);
      this.#notifier = store.deliveries.wakeups.notifier(this.instanceId, this.#logger);
    }
    this.#poll = setInterval(() => void this.wake(), config.deliveryPollIntervalMs);
    this.#poll.unref();
    void this.wake().then(() => this.#timeNextRetry());
  }

  /** Looks for due events now. Resolves when this round of claiming is over (sends may go on). */
  wake(): Promise<void> {
    this.#fullWanted = true;
    return this.#kick();
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
          this.#logger.error({ err: error }, 'claiming due deliveries failed; retrying on the next wake-up');
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

  /**
   * Claims events finalised in this process from their origins, beside the main loop, so a new
   * notification does not queue behind a claim already waiting for the database (on SQLite, for
   * its turn on the writer). A payment's completion says where its notification goes, so the
   * claim is one statement; for other events (refunds, resends) one indexed read by id (on
   * SQLite's read connection) finds their origins first, instead of a walk over due origins.
   * Two claims may then run at once; the store never leases an event twice, and an origin may
   * briefly hold up to twice its depth (its per-host cap on sends is enforced when each send
   * starts, whatever is queued).
   */
  #claimFinalised(): void {
    if (this.#claimingFinalised || !this.#started || this.#stopping) return;
    this.#claimingFinalised = (async () => {
      await this.#ready;
      while (this.#finalisedWaiting() && !this.#stopping) {
        const ids = [...this.#finalised];
        const known = [...this.#finalisedOrigins];
        this.#finalised.clear();
        this.#finalisedOrigins.clear();
        // Other origins may be waiting for a turn (the last full claim stopped short), or an
        // event is not visible here yet: a full claim covers them.
        if (this.#truncated) {
          void this.wake();
          continue;
        }
        const { origins, missing } =
          ids.length > 0 ? await this.#claims.originsOf(ids) : { origins: [], missing: false };
        if (missing) void this.wake();
        const targets = [...new Set([...known, ...origins])];
        if (targets.length > 0) await this.#pump(targets);
      }
    })()
      .catch((error) => {
        this.#logger.debug({ err: error }, 'claiming just-finalised deliveries failed; claiming from every origin');
        void this.wake();
      })
      .finally(() => {
        this.#claimingFinalised = undefined;
        if (this.#finalisedWaiting()) this.#claimFinalised();
      });
  }

  #finalisedWaiting(): boolean {
    return this.#finalised.size > 0 || this.#finalisedOrigins.size > 0;
  }

  /** Origins the store still has events of that are down to half their depth. */
  #refillable(): string[] {
    return [...this.#leftBehind].filter((origin) => this.#held(origin) <= this.#depth(origin) / 2);
  }

  /** Resolves once nothing is being claimed or sent (tests use it instead of sleeping). */
  async idle(): Promise<void> {
    // A held origin slot (UNREACHABLE_HOLD_MS) may still have queued events to start when it ends.
    while (this.#pumping || this.#claimingFinalised || this.#inflight.size > 0 || this.#holds.size > 0) {
      await this.#pumping;
      await this.#claimingFinalised;
      await Promise.allSettled([...this.#inflight.values(), ...this.#holds]);
    }
  }

  get inFlight(): number {
    return this.#inflight.size;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const listeners = this.#services.finalisedListeners;
      const index = listeners.indexOf(this.#onFinalised);
      if (index >= 0) listeners.splice(index, 1);
      this.#notifier?.stop();
      if (this.#poll) clearInterval(this.#poll);
      if (this.#retryTimer) clearTimeout(this.#retryTimer);
      await this.#listener?.stop();
      await this.#pumping;
      await this.#claimingFinalised;
      // Each send ends by its own deadline, then is recorded.
      while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
      this.#sender.close();
      if (!this.#started) return;
      // Queued events never start now; their leases go back with the rest.
      this.#queued.clear();
      this.#queuedCount = 0;
      try {
        await this.#claims.releaseAllOf(this.instanceId);
      } catch (error) {
        this.#logger.warn({ err: error }, 'could not release delivery leases; they expire on their own');
      }
    })();
    return this.#stopping;
  }

  /** Claims and starts sends: a full claim, or (`targets`) a refill of those origins only. */
  async #pump(targets?: string[]): Promise<void> {
    const { config } = this.#services;
    for (let round = 0; round < MAX_ROUNDS && !this.#stopping; round++) {
      this.#startQueued();
      const room = this.#room();
      if (this.#sending >= config.deliveryConcurrency || room <= 0) {
        this.#starved = true;
        return;
      }
      // What is leased either starts now or waits in its origin's queue: per origin no more than
      // its depth, sending and queued together. An origin still above half its depth is
      // skipped: it has enough to send, and topping it up one event at a time would cost a
      // commit per send. Nothing here awaits between the claim and the launches, so the
      // allowances still hold when the sends start.
      const claimedAt = this.#services.now();
      const startedAsClaim = ++this.#claimsStarted;
      const aloneAtStart = this.#claiming++ === 0;
      const claimed = await this.#claims
        .claim({
          owner: this.instanceId,
          now: claimedAt,
          leaseMs: config.deliveryLeaseMs,
          limit: Math.min(CLAIM_BATCH, room),
          allowance: (origin) => {
            const held = this.#held(origin);
            const depth = this.#depth(origin);
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
        await this.#claims.release(
          claimed.events.map((e) => e.id),
          this.instanceId,
        );
        return;
      }
      for (const event of claimed.events) {
        const queue = this.#queued.get(event.origin);
        if (queue) queue.push({ event, claimedAt });
        else this.#queued.set(event.origin, [{ event, claimedAt }]);
        this.#queuedCount++;
      }
      this.#startQueued();
      // Another round only if this (full) claim did not get to every due origin.
      if (targets || !claimed.truncated) return;
    }
  }

  /** Events of `origin` this instance holds: sending plus queued. */
  #held(origin: string): number {
    return (this.#perOrigin.get(origin) ?? 0) + (this.#queued.get(origin)?.length ?? 0);
  }

  /** How many more events may be leased now: the bound on what is held, less what is. */
  #room(): number {
    return this.#maxHeld() - this.#inflight.size - this.#queuedCount;
  }

  /** Events this instance holds at most: queued, sending and not yet recorded. */
  #maxHeld(): number {
    return this.#services.config.deliveryConcurrency * MAX_ROUNDS_AHEAD;
  }

  /** Events of `origin` to hold at most (sending + queued): see "Lease ahead" at the top. */
  #depth(origin: string): number {
    const { deliveryPerHostConcurrency: cap, deliveryLeaseMs } = this.#services.config;
    const pace = this.#pace.get(origin);
    if (pace === undefined) return cap * PREFETCH_ROUNDS;
    return cap * Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS_AHEAD, Math.floor(deliveryLeaseMs / 4 / Math.max(1, pace))));
  }

  #timed(origin: string, ms: number): void {
    const pace = this.#pace.get(origin);
    if (pace === undefined && this.#pace.size >= MAX_PACES) this.#pace.clear();
    this.#pace.set(origin, pace === undefined ? ms : pace * 0.8 + ms * 0.2);
  }

  /** Starts queued events wherever both a global and an origin slot are free, origins in turn. */
  #startQueued(): void {
    if (this.#stopping) return;
    const { config } = this.#services;
    const cap = config.deliveryPerHostConcurrency;
    let started = true;
    while (started && this.#queuedCount > 0 && this.#sending < config.deliveryConcurrency) {
      started = false;
      for (const [origin, queue] of this.#queued) {
        if (this.#sending >= config.deliveryConcurrency) return;
        if ((this.#perOrigin.get(origin) ?? 0) >= cap) continue;
        const next = queue.shift()!;
        this.#queuedCount--;
        // Round robin: this origin goes to the back (or away when its queue is empty).
        this.#queued.delete(origin);
        if (queue.length > 0) this.#queued.set(origin, queue);
        if (this.#services.now() - next.claimedAt > config.deliveryLeaseMs / 2) {
          // Too close to its lease's end to be sent safely: give it back for a fresh claim.
          this.#leftBehind.add(origin);
          this.#claims
            .release([next.event.id], this.instanceId)
            .then(() => this.#refill())
            .catch((error) =>
              this.#logger.debug({ err: error }, 'could not give back a queued delivery; its lease expires'),
            );
        } else {
          this.#launch(next.event);
        }
        started = true;
        break;
      }
    }
  }

  #launch(event: OutboxEvent): void {
    const origin = event.origin;
    this.#perOrigin.set(origin, (this.#perOrigin.get(origin) ?? 0) + 1);
    this.#sending++;
    // Both slots are about sending, so they are freed as soon as the HTTP exchange ends; the
    // lease is held (and the event counted as held) until the attempt is recorded. After an
    // attempt that got no HTTP answer at all (refused, unreachable, timed out), the origin's slot
    // is kept a little longer (UNREACHABLE_HOLD_MS): a dead endpoint refuses at once, and
    // without the pause its backlog's attempts would run as fast as the CPU allows, taking time
    // from every other merchant's payments and notifications. Every attempt is still made and
    // stored; a dead endpoint only gets at most per-host-cap attempts per pause.
    let sendingHeld = true;
    let originHeld = true;
    const releaseOrigin = () => {
      if (!originHeld) return;
      originHeld = false;
      const left = (this.#perOrigin.get(origin) ?? 1) - 1;
      if (left > 0) this.#perOrigin.set(origin, left);
      else this.#perOrigin.delete(origin);
      this.#startQueued();
      // Refill this origin once it is down to half its depth, if the store still has events of it.
      if (this.#leftBehind.has(origin) && this.#held(origin) <= this.#depth(origin) / 2) this.#refill();
    };
    const freeOrigin = (holdOriginMs = 0) => {
      if (!sendingHeld) return;
      sendingHeld = false;
      this.#sending--;
      if (holdOriginMs > 0 && !this.#stopping) {
        const hold: Promise<void> = new Promise((resolve) => {
          setTimeout(() => {
            this.#holds.delete(hold);
            releaseOrigin();
            resolve();
          }, holdOriginMs).unref();
        });
        this.#holds.add(hold);
        // The global slot is free already: another origin's queued event may start.
        this.#startQueued();
      } else releaseOrigin();
    };
    const done = this.#deliver(event, freeOrigin)
      .catch((error) =>
        this.#logger.error(
          { err: error, eventId: event.id },
          'delivery attempt could not be recorded; it is retried when its lease expires',
        ),
      )
      .finally(() => {
        this.#inflight.delete(event.id);
        freeOrigin();
        this.#startQueued();
        // Recording frees room. Once a batch worth is free: a claim skipped for want of room is
        // made now (nothing else would retry it), or, if the last full claim ran out of room
        // before seeing every due origin, the next one is.
        if (this.#room() < this.#services.config.deliveryConcurrency) return;
        if (this.#starved) {
          // A claim (a refill or a new event's) was skipped meanwhile; nothing else would retry it.
          this.#starved = false;
          void this.wake();
        } else if (this.#truncated) {
          this.#refill();
        }
      });
    this.#inflight.set(event.id, done);
  }

  async #deliver(event: OutboxEvent, sent: (holdOriginMs?: number) => void): Promise<void> {
    const { now, key } = this.#services;
    const startedAt = now();
    let outcome: SendOutcome;
    // The merchant directory's copy: kept current by its change marker every MERCHANT_REFRESH
    // (and at once after a change made in the console), as for API credentials, so an attempt
    // costs no read (a round trip on PostgreSQL, made while the origin's slot is held). A
    // rotated secret signs within that time; until then the previous secret, which the merchant
    // still accepts during the overlap, signs alone. The store answers for a merchant the
    // directory does not have yet.
    const merchant =
      this.#services.directory.get(event.merchantId) ?? (await this.#services.merchants.findById(event.merchantId));
    let secrets: string[] | undefined;
    try {
      if (merchant) secrets = signingSecrets(merchant, key, startedAt, this.#opened);
    } catch {
      secrets = undefined;
    }
    if (!secrets) {
      // Never send unsigned: a merchant could not tell it from a forgery.
      outcome = {
        kind: 'error',
        error: "not sent: the merchant's webhook secret cannot be opened (was GATEWAY_SECRET_KEY changed?)",
        latencyMs: 0,
      };
    } else {
      outcome = await this.#sender.send({
        url: event.targetUrl,
        body: Buffer.from(event.payload, 'utf8'),
        headers: notificationHeaders({
          eventId: event.id,
          payload: event.payload,
          secrets,
          nowMs: startedAt,
          userAgent: this.#userAgent,
        }),
        timeoutMs: this.#services.config.deliveryTimeoutMs,
        // A retry: the endpoint already failed once, so its answer comes on a connection of its own.
        fresh: event.attempts > 0,
      });
    }
    this.#timed(event.origin, outcome.latencyMs);
    sent(outcome.kind === 'error' ? UNREACHABLE_HOLD_MS : 0);

    const result: AttemptResult =
      outcome.kind === 'response'
        ? { kind: 'response', status: outcome.status, retryAfter: outcome.retryAfter }
        : outcome;
    const attemptInSeries = event.attempts + 1;
    const transition = nextTransition(result, attemptInSeries, now(), this.#schedule);
    const redirected = outcome.kind === 'response' && outcome.status >= 300 && outcome.status <= 399;
    const applied = await this.#recorder.record({
      attempt: {
        eventId: event.id,
        series: event.series,
        startedAt,
        latencyMs: outcome.latencyMs,
        httpStatus: outcome.kind === 'response' ? outcome.status : null,
        error: outcome.kind === 'error' ? outcome.error : redirected ? 'redirects are not followed' : null,
        responseExcerpt: outcome.kind === 'response' ? outcome.excerpt : null,
        instanceId: this.instanceId,
      },
      owner: this.instanceId,
      transition,
    });
    // A customer may be waiting on the hosted page for this first attempt (app/notification-waits.ts).
    this.#services.notificationWaits.attemptRecorded(event.id);

    this.#services.metrics.notificationAttempt(
      transition.status === 'pending' ? 'retry' : transition.status,
      outcome.kind === 'response' ? outcome.status : null,
      outcome.latencyMs / 1000,
    );
    const log = { eventId: event.id, target: event.origin, attempt: attemptInSeries, series: event.series };
    if (!applied)
      this.#logger.warn(
        log,
        'delivery attempt recorded, but the event changed hands meanwhile (lease expired or resent)',
      );
    else if (transition.status === 'delivered') this.#logger.debug(log, 'notification delivered');
    else if (transition.status === 'failed')
      this.#logger.warn({ ...log, error: transition.lastError }, 'notification failed after the last retry');
    else {
      this.#logger.info(
        { ...log, error: transition.lastError, nextAttemptAt: new Date(transition.nextAttemptAt).toISOString() },
        'notification attempt failed; will retry',
      );
      this.#wakeAt(transition.nextAttemptAt);
    }
  }

  /** A timer for our own retry, so a short rung does not wait for the poll. */
  #wakeAt(at: number): void {
    if (this.#stopping || at >= this.#retryTimerAt) return;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimerAt = at;
    this.#armRetryTimer(at);
  }

  #armRetryTimer(at: number): void {
    this.#retryTimer = setTimeout(
      () => {
        // Timers run on libuv's cached loop time, so under load one can fire a few ms before the
        // clock reaches `at`; claiming then would find nothing due and the retry would wait for
        // the poll. Re-arm for the remainder instead.
        if (this.#services.now() < at) return this.#armRetryTimer(at);
        this.#retryTimer = undefined;
        this.#retryTimerAt = Infinity;
        void this.wake().then(() => this.#timeNextRetry());
      },
      Math.max(0, Math.ceil(at - this.#services.now())),
    );
    this.#retryTimer.unref();
  }

  /** One timer covers only the earliest retry; the store knows the next one. */
  async #timeNextRetry(): Promise<void> {
    try {
      const at = await this.#claims.nextDueAt();
      // Due already but not claimed means its origin is full; a finishing send wakes us then.
      if (at !== null && at > this.#services.now()) this.#wakeAt(at);
    } catch (error) {
      this.#logger.debug({ err: error }, 'could not read the next retry time; the poll covers it');
    }
  }

  /** Other instances may have free slots: tell them once per event-loop turn, after the commit. */
  #notifyOthers(): void {
    this.#notifier?.notify();
  }
}

export const deliveryWorker: WorkerFactory = (services, logger) => new DeliveryWorker(services, logger);
