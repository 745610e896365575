import { type Kysely } from 'kysely';
import { PAYER_CHECKS, PAYER_MISMATCH_POLICIES } from '../../domain/payer-check.ts';
import { sqlIn } from './sql-in.ts';

// The payer check (domain/payer-check.ts, docs/api.md "Payer check"):
// - transactions.payer_check: the verdict on who paid (matched, mismatched, unknown), null until a
//   processor reported the payment paid. Written with the completion, or alone while the payment is
//   held for an operator (PROCESSING with a verdict: app/processor/sync-payment.ts). Nullable with
//   no default, so adding it rewrites no row, and no index: the initiation's INSERT and its
//   B-trees stay exactly as they were (docs/performance.md).
// - merchants.payer_mismatch: what a `mismatched` verdict does to the merchant's payments:
//   `record` (complete as usual, verdict recorded; the default) or `hold` (an operator decides).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('transactions')
    .addColumn('payer_check', 'text', (c) => c.check(sqlIn('payer_check', [...PAYER_CHECKS])))
    .execute();
  await db.schema
    .alterTable('merchants')
    .addColumn('payer_mismatch', 'text', (c) =>
      c
        .notNull()
        .defaultTo('record')
        .check(sqlIn('payer_mismatch', [...PAYER_MISMATCH_POLICIES])),
    )
    .execute();
}
