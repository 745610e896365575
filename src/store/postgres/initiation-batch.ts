// PostgreSQL: the initiations of one event-loop turn go out as ONE multi-row INSERT (arrays
// through unnest), a named prepared statement, instead of one statement and round trip each.
// Per row the answer is what TransactionsRepo.insertOrGet gives: inserted, or the row that
// already holds (merchant, trackid) — the caller then decides replay or 409. An idempotent
// replay writes nothing: ON CONFLICT DO NOTHING skips it and one batched SELECT reads the
// stored rows of every conflicting request of the batch.
import { PerTurnBatches, type Pending as PendingOf } from './per-turn-batches.ts';
import type pg from 'pg';
import type { TransactionsTable } from '../database.ts';
import { isStoreUnavailable } from '../engine.ts';
import { pgArrayLiteral } from './array-literal.ts';
import { transactionFromRow, transactionToRow, type TransactionsRepo } from '../repos/transactions.repo.ts';
import { type TransactionRecord } from '../../domain/transaction.ts';

const MAX_BATCH = 256;
/** INSERT statements in flight at once; more initiations wait and go together (per-turn-batches.ts). */
const MAX_IN_FLIGHT = 2;

/** Column order of the INSERT and of its unnest() arrays, with each column's PostgreSQL type. */
const COLUMNS = [
  ['id', 'text'],
  ['merchant_id', 'text'],
  ['trackid', 'text'],
  ['request_hash', 'text'],
  ['token', 'text'],
  ['redirect_id', 'text'],
  ['status', 'text'],
  ['error_code_tag', 'text'],
  ['error_text', 'text'],
  ['amount_minor', 'bigint'],
  ['currency', 'text'],
  ['payment_method', 'text'],
  ['bill_country', 'text'],
  ['bill_customerip', 'text'],
  ['bill_email', 'text'],
  ['return_url', 'text'],
  ['server_url', 'text'],
  ['payer_account_no', 'text'],
  ['payer_account_name', 'text'],
  ['payer_bank_code', 'text'],
  ['productdesc', 'text'],
  ['lang', 'text'],
  ['created_at', 'bigint'],
  ['expires_at', 'bigint'],
  ['completed_at', 'bigint'],
  ['return_url_on_failure', 'text'],
  ['refunded_minor', 'bigint'],
] as const satisfies ReadonlyArray<readonly [keyof TransactionsTable, 'text' | 'bigint']>;

const INSERT_BATCH = {
  name: 'transactions_insert_batch_v2',
  text:
    `insert into transactions (${COLUMNS.map(([c]) => c).join(', ')}) ` +
    `select * from unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) ` +
    'on conflict (merchant_id, trackid) do nothing returning id',
};

const SELECT_EXISTING = {
  name: 'transactions_select_by_trackids_v1',
  text:
    'select t.* from transactions t join unnest($1::text[], $2::text[]) as k(merchant_id, trackid) ' +
    'on t.merchant_id = k.merchant_id and t.trackid = k.trackid',
};

type Pending = PendingOf<TransactionRecord, { inserted: boolean; row: TransactionRecord }>;

/** Batches TransactionsRepo.insertOrGet for PostgreSQL; see the file comment. */
export class PgInitiationBatch {
  readonly #pool: pg.Pool;
  readonly #transactions: TransactionsRepo;
  readonly #batches = new PerTurnBatches<TransactionRecord, { inserted: boolean; row: TransactionRecord }>(
    MAX_BATCH,
    MAX_IN_FLIGHT,
    (batch) => this.#run(batch),
  );

  constructor(pool: pg.Pool, transactions: TransactionsRepo) {
    this.#pool = pool;
    this.#transactions = transactions;
  }

  insertOrGet(record: TransactionRecord): Promise<{ inserted: boolean; row: TransactionRecord }> {
    return this.#batches.add(record);
  }

  async #run(batch: Pending[]): Promise<void> {
    try {
      const rows = batch.map((p) => transactionToRow(p.input));
      const arrays = COLUMNS.map(([column]) => pgArrayLiteral(rows.map((row) => row[column])));
      const inserted = await this.#pool.query<{ id: string }>({ ...INSERT_BATCH, values: arrays });
      const insertedIds = new Set(inserted.rows.map((r) => r.id));
      const conflicting = batch.filter((p) => !insertedIds.has(p.input.id));
      const existing = new Map<string, TransactionRecord>();
      if (conflicting.length > 0) {
        const found = await this.#pool.query<TransactionsTable>({
          ...SELECT_EXISTING,
          values: [conflicting.map((p) => p.input.merchantId), conflicting.map((p) => p.input.trackid)],
        });
        for (const row of found.rows) existing.set(key(row.merchant_id, row.trackid), transactionFromRow(row));
      }
      for (const p of batch) {
        if (insertedIds.has(p.input.id)) {
          p.resolve({ inserted: true, row: p.input });
          continue;
        }
        const row = existing.get(key(p.input.merchantId, p.input.trackid));
        // Not found: the conflicting row belonged to a transaction that rolled back meanwhile; try alone.
        if (row) p.resolve({ inserted: false, row });
        else this.#transactions.insertOrGet(p.input).then(p.resolve, p.reject);
      }
    } catch (error) {
      // One bad row must not fail its neighbours: unless the store is down, each row goes alone.
      if (batch.length === 1 || isStoreUnavailable(error)) for (const p of batch) p.reject(error);
      else for (const p of batch) this.#transactions.insertOrGet(p.input).then(p.resolve, p.reject);
    }
  }
}

function key(merchantId: string, trackid: string): string {
  return `${merchantId}\u0000${trackid}`;
}
