// PostgreSQL: the completions of one event-loop turn complete together, as a set (issue 14).
// One statement reads all their rows, planCompletion decides each one (the same function the
// one-transaction job uses), and one more statement writes every final state, transition, outbox
// event and ledger entry (store/pg-completions.repo.ts). Two round trips per set instead of ten
// per completion, no transaction held open across round trips, so a merchant's payout row is
// locked only while the write statement runs and commits.
//
// A completion that planCompletion refuses (unknown, final, expiry too early) fails alone. When a
// set's write fails as a whole (a database guard refused one of its rows, a deadlock with a
// concurrent set), each completion of the set is retried alone through `completeOne` (the store
// job: its own transaction, the domain's rules and their precise errors); a failed statement
// wrote nothing. A transaction asked to complete again while a set holding it is in flight waits
// for that set, then finds its final state (INVALID_STATE, as when completed one after another).
import { accountId, type AccountRef } from '../../domain/ledger.ts';
import { alreadyFinal } from '../../domain/lifecycle.ts';
import { isStoreUnavailable, type StoreEngine } from '../engine.ts';
import { ensureAccounts, readForCompletion, writeCompletions } from './completion-sets.repo.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type pg from 'pg';
import { PerTurnBatches, type Pending as PendingOf } from './per-turn-batches.ts';
import { planCompletion, type CompletionArgs, type CompletionPlan } from '../../app/complete-payment.ts';

/** Completions per set; more wait for the next. */
const MAX_SET = 256;
/**
 * Sets in flight at once, each on its pooled connection for one statement at a time. Sets of
 * one merchant queue on its payout row while their write runs; two in flight keep one set's read
 * overlapping another's write, and leave the rest of the pool to initiations, status reads and
 * the delivery worker. Completions arriving meanwhile simply make the next set larger.
 */
export const MAX_SETS_IN_FLIGHT = 2;

type Pending = PendingOf<CompletionArgs, TransactionRecord>;

export class CompletionBatches {
  readonly #pool: pg.Pool;
  readonly #completeOne: (args: CompletionArgs) => Promise<TransactionRecord>;
  readonly #batches: PerTurnBatches<CompletionArgs, TransactionRecord>;
  readonly #inFlightIds = new Set<string>();
  /** Accounts known to exist: the ledger never deletes one (a trigger refuses it). */
  readonly #knownAccounts = new Set<string>();

  constructor(
    pool: pg.Pool,
    completeOne: (args: CompletionArgs) => Promise<TransactionRecord>,
    maxInFlight = MAX_SETS_IN_FLIGHT,
  ) {
    this.#pool = pool;
    this.#completeOne = completeOne;
    this.#batches = new PerTurnBatches(
      MAX_SET,
      maxInFlight,
      (set) => this.#runReleasing(set),
      (queue, max) => this.#select(queue, max),
    );
  }

  complete(args: CompletionArgs): Promise<TransactionRecord> {
    return this.#batches.add(args);
  }

  /**
   * One completion per transaction in flight: a second one waits until the first's set is done,
   * then reads its final state. Sorted by id, so every set locks its transaction rows in the same
   * order (no deadlock between sets).
   */
  #select(queue: Pending[], max: number): Pending[] {
    const set: Pending[] = [];
    const later: Pending[] = [];
    for (const p of queue) {
      if (set.length < max && !this.#inFlightIds.has(p.input.transactionId)) {
        this.#inFlightIds.add(p.input.transactionId);
        set.push(p);
      } else later.push(p);
    }
    queue.splice(0, queue.length, ...later);
    return set.sort((x, y) =>
      x.input.transactionId < y.input.transactionId ? -1 : x.input.transactionId > y.input.transactionId ? 1 : 0,
    );
  }

  async #runReleasing(set: Pending[]): Promise<void> {
    try {
      await this.#run(set);
    } finally {
      for (const p of set) this.#inFlightIds.delete(p.input.transactionId);
    }
  }

  async #run(set: Pending[]): Promise<void> {
    let rows: Awaited<ReturnType<typeof readForCompletion>>;
    try {
      rows = await readForCompletion(
        this.#pool,
        set.map((p) => p.input.transactionId),
      );
    } catch (error) {
      return this.#fallBack(set, error);
    }
    const planned: Array<{ p: Pending; plan: CompletionPlan }> = [];
    for (const p of set) {
      try {
        planned.push({ p, plan: planCompletion(rows.get(p.input.transactionId), p.input) });
      } catch (error) {
        p.reject(error);
      }
    }
    if (planned.length === 0) return;
    let finalised: Set<string>;
    try {
      await this.#ensureAccounts(planned.map((x) => x.plan));
      finalised = await writeCompletions(
        this.#pool,
        planned.map((x) => x.plan),
      );
    } catch (error) {
      return this.#fallBack(
        planned.map((x) => x.p),
        error,
      );
    }
    for (const { p, plan } of planned) {
      if (finalised.has(plan.final.id)) p.resolve(plan.final);
      else p.reject(alreadyFinal());
    }
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

  #fallBack(set: Pending[], error: unknown): void {
    if (isStoreUnavailable(error)) {
      for (const p of set) p.reject(error);
      return;
    }
    // The store may have been rebuilt under us (tests); accounts are checked again.
    this.#knownAccounts.clear();
    for (const p of set) this.#completeOne(p.input).then(p.resolve, p.reject);
  }
}

/**
 * How completions reach the store: on PostgreSQL as sets (above), falling back to `completeOne`;
 * on SQLite `completeOne` itself (the store job, which the writer thread commits in groups).
 */
export function completionsIn(
  store: StoreEngine,
  completeOne: (args: CompletionArgs) => Promise<TransactionRecord>,
): (args: CompletionArgs) => Promise<TransactionRecord> {
  if (!store.pgPool) return completeOne;
  const batches = new CompletionBatches(store.pgPool, completeOne);
  return (args) => batches.complete(args);
}
