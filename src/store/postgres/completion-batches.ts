// PostgreSQL: the completions of one event-loop turn are written together, as a set. The use case
// (app/complete-payment.ts) read each row and planned it (domain/completion.ts); here ONE
// statement writes every final state, transition, outbox event and ledger entry of the set
// (completion-sets.repo.ts), so a set costs one round trip instead of a transaction of ten per
// completion, and a merchant's payout row is locked only while that statement runs and commits.
//
// The write is conditional on each row still being PROCESSING: a plan whose transaction someone
// else finalised first writes nothing and resolves false. When a set's write fails as a whole (a
// database guard refused one of its rows, a deadlock with a concurrent set), each plan is written
// again alone, so one bad plan fails only itself; a failed statement wrote nothing. Two plans of
// one transaction never share a set: the second waits for the first's set, then finds the row
// final (false).
import { accountId, type AccountRef } from '../../domain/ledger.ts';
import type { CompletionPlan } from '../../domain/completion.ts';
import { isStoreUnavailable } from '../store-unavailable.ts';
import { ensureAccounts, writeCompletions } from './completion-sets.repo.ts';
import type pg from 'pg';
import { PerTurnBatches, type Pending as PendingOf } from './per-turn-batches.ts';

/** Completions per set; more wait for the next. */
const MAX_SET = 256;
/**
 * Sets in flight at once, each on its pooled connection for one statement at a time. Sets of
 * one merchant queue on its payout row while their write runs; two in flight keep one set's
 * write overlapping another's, and leave the rest of the pool to initiations, status reads and
 * the delivery worker. Completions arriving meanwhile simply make the next set larger.
 */
export const MAX_SETS_IN_FLIGHT = 2;

type Pending = PendingOf<CompletionPlan, boolean>;

export class CompletionBatches {
  readonly #pool: pg.Pool;
  readonly #batches: PerTurnBatches<CompletionPlan, boolean>;
  readonly #inFlightIds = new Set<string>();
  /** Accounts known to exist: the ledger never deletes one (a trigger refuses it). */
  readonly #knownAccounts = new Set<string>();

  constructor(pool: pg.Pool, maxInFlight = MAX_SETS_IN_FLIGHT) {
    this.#pool = pool;
    this.#batches = new PerTurnBatches(
      MAX_SET,
      maxInFlight,
      (set) => this.#runReleasing(set),
      (queue, max) => this.#select(queue, max),
    );
  }

  /** Resolves true once the plan is committed, false when the transaction was final already. */
  write(plan: CompletionPlan): Promise<boolean> {
    return this.#batches.add(plan);
  }

  /**
   * One plan per transaction in flight: a second one waits until the first's set is done.
   * Sorted by id, so every set locks its transaction rows in the same order (no deadlock
   * between sets).
   */
  #select(queue: Pending[], max: number): Pending[] {
    const set: Pending[] = [];
    const later: Pending[] = [];
    for (const p of queue) {
      if (set.length < max && !this.#inFlightIds.has(p.input.final.id)) {
        this.#inFlightIds.add(p.input.final.id);
        set.push(p);
      } else later.push(p);
    }
    queue.splice(0, queue.length, ...later);
    return set.sort((x, y) => (x.input.final.id < y.input.final.id ? -1 : x.input.final.id > y.input.final.id ? 1 : 0));
  }

  async #runReleasing(set: Pending[]): Promise<void> {
    try {
      await this.#run(set);
    } finally {
      for (const p of set) this.#inFlightIds.delete(p.input.final.id);
    }
  }

  async #run(set: Pending[]): Promise<void> {
    let finalised: Set<string>;
    try {
      await this.#ensureAccounts(set.map((p) => p.input));
      finalised = await writeCompletions(
        this.#pool,
        set.map((p) => p.input),
      );
    } catch (error) {
      return this.#oneByOne(set, error);
    }
    for (const p of set) p.resolve(finalised.has(p.input.final.id));
  }

  /** Creates the accounts the set posts to (payout, fee, clearing) unless known to exist. */
  async #ensureAccounts(plans: CompletionPlan[]): Promise<void> {
    const missing = new Map<string, AccountRef>();
    for (const plan of plans) {
      for (const line of plan.ledger?.lines ?? []) {
        const id = accountId(line.account);
        if (!this.#knownAccounts.has(id)) missing.set(id, line.account);
      }
    }
    if (missing.size === 0) return;
    await ensureAccounts(this.#pool, [...missing.values()], plans[0]!.transition.at);
    for (const id of missing.keys()) this.#knownAccounts.add(id);
  }

  /** After a failed set: each plan alone, so only the plan the database refuses fails. */
  async #oneByOne(set: Pending[], error: unknown): Promise<void> {
    if (isStoreUnavailable(error) || set.length === 1) {
      for (const p of set) p.reject(error);
      return;
    }
    // The store may have been rebuilt under us (tests); accounts are checked again.
    this.#knownAccounts.clear();
    await Promise.all(
      set.map(async (p) => {
        try {
          await this.#ensureAccounts([p.input]);
          p.resolve((await writeCompletions(this.#pool, [p.input])).has(p.input.final.id));
        } catch (alone) {
          p.reject(alone);
        }
      }),
    );
  }
}
