// PostgreSQL: completions as sets. The planned completions of one event-loop turn
// (domain/completion.ts) are written in ONE statement: a data-modifying WITH that finalises every
// row still PROCESSING, appends their transitions and outbox events, locks the payout accounts they
// credit (in account-id order), continues those accounts' chains and inserts the postings and
// entries. It runs on its own (autocommit), so no lock is held across a round trip: a merchant's
// payout row is locked for the statement's execution and its commit only. A named prepared
// statement with arrays through unnest(), like initiation-batch.ts. SQL only.
//
// Why the write is safe as one statement:
//  - Everything hangs off `fin`, the conditional UPDATE (… AND status = 'PROCESSING' AND the payer
//    check as the plan read it … RETURNING id): a transaction finalised meanwhile by someone else,
//    or held by the payer check, yields no row there, so nothing else is written for it (exactly
//    one final state, one transition, one outbox event, one entry).
//  - Postings are inserted before their entries: the entry INSERT waits for an InitPlan that
//    counts every inserted posting. The entry's BEFORE trigger then sees them (a trigger's
//    queries see the rows its outer statement wrote before it) and the SUCCESS state written by
//    `fin`. The posting triggers run as before; several chained postings to one account in one
//    statement need migration 014 (the chain head may be a posting of this same statement).
//  - Chain positions (sequence, running balance) are taken from the rows as locked: FOR UPDATE
//    re-reads a row another statement moved meanwhile, so a waiting set continues the chain the
//    other one left. The credit of a payment is never negative, so no overdraft can arise here;
//    the database's CHECK stays the guard, and any refused set is written again one plan at a
//    time by the caller (completion-batches.ts), so only the plan it refuses fails.
//  - `fin` finds its rows by primary key only. Its status test is written `(…) is true`, which no
//    index can serve: with a plain `status = 'PROCESSING'` and statistics that had seen few open
//    payments, the planner read them through an index leading with status and walked every open
//    payment for each set (test/store/postgres/completion-plan.test.ts; docs/performance.md).
import type pg from 'pg';
import { accountId, keepsRunningBalance, type AccountRef, type PostingLine } from '../../domain/ledger.ts';
import { originOf } from '../../domain/url-origin.ts';
import type { CompletionInput, CompletionPlan } from '../../domain/completion.ts';
import type { TransactionsTable } from '../database.ts';
import { completionInputFromRow } from '../repos/transactions.repo.ts';
import { PG_TRANSACTION_LOOKUPS } from './transaction-lookups.ts';

const ENSURE_ACCOUNTS = {
  name: 'ledger_accounts_ensure_v1',
  text:
    'insert into ledger_accounts (id, kind, merchant_id, currency, balance_minor, posting_count, created_at) ' +
    'select id, kind, merchant_id, currency, 0, 0, $5::bigint ' +
    'from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as a(id, kind, merchant_id, currency) ' +
    'order by id on conflict (id) do nothing',
};

const WRITE = {
  name: 'completions_write_v3',
  text:
    `with c as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], ` +
    `$8::text[], $9::text[], $10::text[], $11::text[], $27::text[], $28::text[])
      as c(id, status, error_code_tag, error_text, at, cause, event_id, merchant_id, target_url, origin, payload, ` +
    `payer_check, payer_check_as_read)
  ),
  fin as (
    update transactions t set status = c.status, error_code_tag = c.error_code_tag, error_text = c.error_text, ` +
    `completed_at = c.at, payer_check = c.payer_check
    from c where t.id = any($1::text[]) and t.id = c.id and (t.status = 'PROCESSING') is true
      and t.payer_check is not distinct from c.payer_check_as_read
    returning t.id
  ),
  transition as (
    insert into transaction_transitions (transaction_id, seq, from_status, to_status, cause, error_code_tag, at)
    select c.id, coalesce((select max(x.seq) from transaction_transitions x where x.transaction_id = c.id), 0) + 1, ` +
    `'PROCESSING', c.status, c.cause, c.error_code_tag, c.at
    from c join fin on fin.id = c.id
  ),
  outbox as (
    insert into outbox_events (id, transaction_id, merchant_id, target_url, origin, payload, status, attempts, ` +
    `next_attempt_at, series, created_at)
    select c.event_id, c.id, c.merchant_id, c.target_url, c.origin, c.payload, 'pending', 0, c.at, 1, c.at
    from c join fin on fin.id = c.id
  ),
  line as (
    select * from unnest($12::text[], $13::text[], $14::int[], $15::text[], $16::text[], $17::bigint[], ` +
    `$18::boolean[], $19::bigint[], $20::int[])
      as l(entry_id, transaction_id, line_no, account_id, currency, amount_minor, chained, created_at, ord)
    where l.transaction_id in (select id from fin)
  ),
  account as (
    select a.id, a.balance_minor, a.posting_count from ledger_accounts a
    where a.id in (select l.account_id from line l where l.chained)
    order by a.id for update
  ),
  posting as (
    insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor, ` +
    `created_at)
    select s.entry_id, s.line_no, s.account_id, s.currency, s.amount_minor, s.account_seq, s.balance_after_minor, ` +
    `s.created_at from (
      select l.entry_id, l.line_no, l.account_id, l.currency, l.amount_minor,
             a.posting_count + row_number() over w as account_seq,
             cast(a.balance_minor + sum(l.amount_minor) over w as bigint) as balance_after_minor,
             l.created_at
      from line l join account a on a.id = l.account_id
      where l.chained
      window w as (partition by l.account_id order by l.ord, l.line_no rows between unbounded preceding and current row)
      union all
      select l.entry_id, l.line_no, l.account_id, l.currency, l.amount_minor, null::bigint, null::bigint, l.created_at
      from line l where not l.chained
    ) s
    order by s.account_id, s.account_seq nulls last
    returning entry_id
  ),
  entry as (
    insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason, created_at)
    select e.id, e.kind, e.merchant_id, e.transaction_id, null, e.reason, e.created_at
    from unnest($21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::bigint[]) ` +
    `as e(id, kind, merchant_id, transaction_id, reason, created_at)
    where (select count(*) from posting) > 0 and e.transaction_id in (select id from fin)
  )
  select id from fin`,
};

/** The rows to complete, each with its merchant's fee rate as of now; unknown ids are absent (bench, plan tests). */
export async function readForCompletions(pool: pg.Pool, ids: string[]): Promise<Map<string, CompletionInput>> {
  const { rows } = await pool.query<TransactionsTable & { fee_rate_ppm: string }>({
    ...PG_TRANSACTION_LOOKUPS.forCompletions,
    values: [ids],
  });
  return new Map(rows.map((row) => [row.id, completionInputFromRow(row)]));
}

/** Creates the accounts that do not exist yet (one statement; accounts are never deleted). */
export async function ensureAccounts(pool: pg.Pool, refs: AccountRef[], now: number): Promise<void> {
  if (refs.length === 0) return;
  await pool.query({
    ...ENSURE_ACCOUNTS,
    values: [
      refs.map(accountId),
      refs.map((r) => r.kind),
      refs.map((r) => r.merchantId),
      refs.map((r) => r.currency),
      String(now),
    ],
  });
}

/**
 * Writes the completions that are still PROCESSING, all in one statement (atomic). Returns the
 * ids it finalised; a completion missing there was finalised by someone else first and wrote
 * nothing. The ids must be distinct; their payout accounts must exist (ensureAccounts).
 */
export async function writeCompletions(pool: pg.Pool, writes: CompletionPlan[]): Promise<Set<string>> {
  const { rows } = await pool.query<{ id: string }>(completionsWriteQuery(writes));
  return new Set(rows.map((r) => r.id));
}

/** The write statement with its arrays (also for EXPLAIN in bench/ledger-explain.ts). */
export function completionsWriteQuery(writes: CompletionPlan[]): { name: string; text: string; values: unknown[] } {
  const col = <T>(pick: (w: CompletionPlan) => T) => writes.map(pick);
  const lines: Array<{ w: CompletionPlan; line: PostingLine; lineNo: number; ord: number }> = [];
  writes.forEach((w, ord) => w.ledger?.lines.forEach((line, i) => lines.push({ w, line, lineNo: i + 1, ord })));
  const entries = writes.flatMap((w) => (w.ledger ? [w.ledger.entry] : []));
  return {
    ...WRITE,
    values: [
      col((w) => w.final.id),
      col((w) => w.final.status),
      col((w) => w.final.errorCodeTag),
      col((w) => w.final.errorText),
      col((w) => String(w.transition.at)),
      col((w) => w.transition.cause),
      col((w) => w.event.id),
      col((w) => w.event.merchantId),
      col((w) => w.event.targetUrl),
      col((w) => originOf(w.event.targetUrl)),
      col((w) => w.event.payload),
      lines.map((l) => l.w.ledger!.entry.id),
      lines.map((l) => l.w.final.id),
      lines.map((l) => l.lineNo),
      lines.map((l) => accountId(l.line.account)),
      lines.map((l) => l.line.account.currency),
      lines.map((l) => String(l.line.amountMinor)),
      lines.map((l) => keepsRunningBalance(l.line.account.kind)),
      lines.map((l) => String(l.w.ledger!.entry.createdAt)),
      lines.map((l) => l.ord),
      entries.map((e) => e.id),
      entries.map((e) => e.kind),
      entries.map((e) => e.merchantId),
      entries.map((e) => e.transactionId),
      entries.map((e) => e.reason),
      entries.map((e) => String(e.createdAt)),
      col((w) => w.final.payerCheck),
      col((w) => w.payerCheckAsRead),
    ],
  };
}
