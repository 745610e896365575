// Posts one entry inside `trx` the way the gateway's use cases do (app/refund-payment.ts,
// app/ledger-operations.ts): lock the accounts, plan from their balances (domain/ledger.ts,
// which refuses an overdraft), insert. For store tests that write ledger entries directly.
import { planPostings, type JournalEntry, type PlannedPosting, type PostingLine } from '../../src/domain/ledger.ts';
import type { Trx } from '../../src/store/engine.ts';
import type { LedgerRepo } from '../../src/store/repos/ledger.repo.ts';

export async function postEntry(
  ledger: LedgerRepo,
  trx: Trx,
  entry: JournalEntry,
  lines: PostingLine[],
): Promise<PlannedPosting[]> {
  const states = await ledger.lockAccounts(
    trx,
    lines.map((l) => l.account),
    entry.createdAt,
  );
  const planned = planPostings(lines, states);
  await ledger.insertPlanned(trx, entry, planned);
  return planned;
}
