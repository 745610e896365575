// A completion's write inside one database transaction (SQLite's `writeCompletion` store job,
// sqlite/jobs.ts): the final state, its transition, the outbox event and, on success, the
// journal entry, or nothing at all. What to write was decided by domain/completion.ts; this only
// writes it. PostgreSQL writes the same rows for a whole set in one statement
// (postgres/completion-sets.repo.ts): keep the two in step.
import type { CompletionPlan } from '../../domain/completion.ts';
import type { Trx } from '../engine.ts';
import { LedgerRepo } from './ledger.repo.ts';
import { insertOutboxEvent } from './outbox.repo.ts';
import { TransactionsRepo } from './transactions.repo.ts';

/**
 * Repositories over a job's transaction handle, created once per handle (the SQLite writer
 * thread has one), so what they compile once (e.g. the transaction INSERT) is kept.
 */
const reposByHandle = new WeakMap<Trx, { transactions: TransactionsRepo; ledger: LedgerRepo }>();
export function reposFor(trx: Trx): { transactions: TransactionsRepo; ledger: LedgerRepo } {
  let repos = reposByHandle.get(trx);
  if (!repos)
    reposByHandle.set(trx, (repos = { transactions: new TransactionsRepo(trx), ledger: new LedgerRepo(trx) }));
  return repos;
}

/** Writes the plan if the transaction is still PROCESSING; false (nothing written) when someone else finalised it. */
export async function writeCompletionIn(trx: Trx, plan: CompletionPlan): Promise<boolean> {
  const { transactions, ledger } = reposFor(trx);
  const { final } = plan;
  // First, and conditional: nothing else is written for a transaction finalised (or held by the
  // payer check) meanwhile.
  const finalised = await transactions.finalise(
    trx,
    final.id,
    {
      status: final.status,
      errorCodeTag: final.errorCodeTag,
      errorText: final.errorText,
      completedAt: plan.transition.at,
      payerCheck: final.payerCheck,
    },
    plan.payerCheckAsRead,
  );
  if (!finalised) return false;
  await transactions.addTransition(trx, plan.transition);
  await insertOutboxEvent(trx, plan.event);
  // The ledger goes last: on PostgreSQL its merchant payout row lock is then held only for the
  // postings, the entry and the commit, so completions of one merchant queue as briefly as possible.
  if (plan.ledger) await ledger.insertContinuingChains(trx, plan.ledger.entry, plan.ledger.lines);
  return true;
}
