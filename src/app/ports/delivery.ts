// The delivery worker's port: leases on due notifications, the attempt log, and wake-ups
// between instances (implemented by store/; docs/notifications.md).
import type { AttemptRecord, OutboxEvent } from '../../domain/outbox-event.ts';

export type FairClaimOptions = {
  owner: string;
  /** Due when next_attempt_at <= now (the gateway's clock, like the rest of the lifecycle). */
  now: number;
  leaseMs: number;
  /** Events to take at most. */
  limit: number;
  /** How many events of this origin may be leased now. */
  allowance: (origin: string) => number;
  /** Origins are visited in order starting after this one, wrapping around (round robin). */
  after?: string;
  /** Only these origins, in this order (a refill of origins the caller knows to have events left). */
  origins?: readonly string[];
};

export type FairClaim = {
  /** Leased to the owner, at most `allowance(origin)` per origin, oldest due first per origin. */
  events: OutboxEvent[];
  /** The last origin planned; pass it as `after` next time so every origin gets its turn. */
  lastOrigin: string | undefined;
  /** Due origins this claim may have left events of: skipped (no allowance) or given their whole share. */
  leftBehind: string[];
  /** Due origins whose due, free events this claim took all of. */
  exhausted: string[];
  /** It stopped before looking at every due origin (`limit` ran out, or the per-claim origin cap). */
  truncated: boolean;
};

/** Where wake-ups report trouble (a pino logger fits). */
export type WakeupLog = { warn(details: object, message: string): void; debug(details: object, message: string): void };

/**
 * Tells the delivery workers of other instances that notifications became due. Only a hint:
 * the outbox is the truth, and each worker's poll finds what a lost wake-up missed.
 */
export interface DeliveryWakeups {
  /** Calls `onWake` when another instance announces due work, and once whenever (re)connected. */
  listen(self: string, onWake: () => void, log: WakeupLog): { stop(): Promise<void> };
  /** Announces due work at most once per event-loop turn, after the turn's commits. */
  notifier(self: string, log: WakeupLog): { notify(): void; stop(): void };
  /** Announces due work now (an operator's resend). */
  announce(self: string): Promise<void>;
}

/** The delivery worker's store: leases on due notifications and the attempt log. */
export interface DeliveryStore {
  claim(options: FairClaimOptions): Promise<FairClaim>;
  /** The origins of these events (missing: some id was not found). */
  originsOf(ids: readonly string[]): Promise<{ origins: string[]; missing: boolean }>;
  release(ids: readonly string[], owner: string): Promise<void>;
  releaseAllOf(owner: string): Promise<number>;
  /**
   * True when a store serves one process only (SQLite): leases found at start belong to a
   * predecessor that died, and `releaseAll` gives them back.
   */
  readonly singleProcess: boolean;
  releaseAll(): Promise<number>;
  /** The earliest next_attempt_at of a pending event, or null. */
  nextDueAt(): Promise<number | null>;
  /**
   * Records a batch of attempts and applies each transition whose lease the owner still holds
   * for that series; resolves with whether each transition was applied. Atomic per batch.
   */
  recordAttempts(items: readonly AttemptRecord[]): Promise<boolean[]>;
  /** Cross-instance wake-ups; undefined when a store serves one process only. */
  readonly wakeups: DeliveryWakeups | undefined;
}
