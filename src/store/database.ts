// Table shapes as Kysely sees them. Money columns are BIGINT counts of 1/10,000 of a
// currency unit; times are BIGINT Unix milliseconds. SQLite returns them as numbers,
// PostgreSQL as strings: read them through `toBigInt`/`toNumber` below, never parseFloat.
import type { Generated } from 'kysely';

export type Int64 = number | bigint | string;

export interface MerchantsTable {
  id: string;
  name: string;
  password_hash: string;
  webhook_secret_enc: string;
  previous_webhook_secret_enc: string | null;
  previous_webhook_secret_expires_at: Int64 | null;
  payout_currency: string;
  payout_account: string;
  fee_rate_ppm: Int64;
  status: 'active' | 'disabled';
  /** Migration 016: what a mismatched payer check does (domain/payer-check.ts). */
  payer_mismatch: Generated<'record' | 'hold'>;
  created_at: Int64;
  updated_at: Int64;
}

export interface TransactionsTable {
  id: string;
  merchant_id: string;
  trackid: string;
  request_hash: string;
  token: string;
  redirect_id: string;
  status: 'PROCESSING' | 'SUCCESS' | 'FAILED';
  error_code_tag: string | null;
  error_text: string | null;
  amount_minor: Int64;
  currency: string;
  payment_method: string;
  bill_country: string;
  bill_customerip: string;
  bill_email: string;
  return_url: string;
  server_url: string;
  payer_account_no: string;
  payer_account_name: string;
  payer_bank_code: string;
  productdesc: string | null;
  lang: string | null;
  created_at: Int64;
  expires_at: Int64;
  completed_at: Int64 | null;
  /** Migration 012: where a failed payment sends the customer (null: return_url). */
  return_url_on_failure: string | null;
  /** Migration 012: total refunded so far (never more than amount_minor; only on SUCCESS). */
  refunded_minor: Int64;
  /**
   * Migration 016: the payer check's verdict, null until a processor reported the payment paid.
   * Never part of the initiation's INSERT (transactionToRow leaves it out).
   */
  payer_check: 'matched' | 'mismatched' | 'unknown' | null;
}

/** Migration 012: one row per refund. */
export interface RefundsTable {
  id: string;
  merchant_id: string;
  transaction_id: string;
  idempotency_key: string;
  request_hash: string;
  amount_minor: Int64;
  currency: string;
  /** Total refunded on the payment right after this refund. */
  refunded_after_minor: Int64;
  reason: string | null;
  reference: string | null;
  processor: string;
  processor_reference: string | null;
  /** Migration 017: 'gateway' or 'merchant' for a bank-transfer refund, null for one at the processor. */
  transfer_paid_by: string | null;
  created_at: Int64;
}

export interface TransactionTransitionsTable {
  transaction_id: string;
  seq: number;
  from_status: string;
  to_status: string;
  cause: string;
  error_code_tag: string | null;
  at: Int64;
}

export interface OutboxEventsTable {
  id: string;
  transaction_id: string;
  merchant_id: string;
  target_url: string;
  /** scheme://host[:port] of target_url (domain/url-origin.ts); null only before migration 010's backfill. */
  origin: string | null;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Int64;
  lease_owner: string | null;
  lease_expires_at: Int64 | null;
  series: number;
  created_at: Int64;
  delivered_at: Int64 | null;
  last_error: string | null;
  /** Migration 012: set on a refund notification; null on the payment's result notification. */
  refund_id: string | null;
}

export interface DeliveryAttemptsTable {
  event_id: string;
  attempt_no: number;
  series: number;
  started_at: Int64;
  latency_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  instance_id: string;
}

export interface LedgerAccountsTable {
  id: string;
  kind: 'merchant_payout' | 'gateway_fee' | 'gateway_clearing' | 'operator_adjustment';
  merchant_id: string | null;
  currency: string;
  /** Sum of the account's chained postings; a summed account's unchained postings come on top (migration 011). */
  balance_minor: Int64;
  /** Sequence number of the account's latest chained posting (0: none). */
  posting_count: Int64;
  created_at: Int64;
}

export interface JournalEntriesTable {
  id: string;
  kind: 'payment' | 'credit' | 'debit' | 'refund';
  merchant_id: string;
  transaction_id: string | null;
  idempotency_key: string | null;
  reason: string | null;
  created_at: Int64;
}

export interface PostingsTable {
  entry_id: string;
  line_no: number;
  account_id: string;
  currency: string;
  amount_minor: Int64;
  /**
   * This posting's place in its account's chain, and the account balance right after it. Both
   * null on a posting to a summed account (fee, clearing: migration 011), which has no chain.
   */
  account_seq: Int64 | null;
  balance_after_minor: Int64 | null;
  created_at: Int64;
}

/** Facts about the deployment itself, e.g. the check value of the secret key it was first started with. */
export interface GatewayMetaTable {
  name: string;
  value: string;
  created_at: Int64;
}

/** One processor request that creates a QR or moves money back (migration 015). */
export interface ProcessorAttemptsTable {
  reference: string;
  transaction_id: string;
  connector: string;
  kind: 'qr' | 'void';
  attempt: number;
  state: string;
  state_at: Int64;
  qr_payload: string | null;
  expires_at: Int64 | null;
  account_name: string | null;
  issuer: string | null;
  processor_txn_no: string | null;
  paid_amount_minor: Int64 | null;
  paid_at: Int64 | null;
  refund_id: string | null;
  parent_reference: string | null;
  last_error: string | null;
  next_check_at: Int64 | null;
  checks: number;
  lease_owner: string | null;
  lease_expires_at: Int64 | null;
  created_at: Int64;
}

export interface ProcessorNotificationsTable {
  id: string;
  connector: string;
  received_at: Int64;
  source_ip: string | null;
  body: string;
  reference: string | null;
  processor_txn_no: string | null;
  transaction_id: string | null;
  outcome: string;
  dedupe_key: string | null;
}

export interface AttentionItemsTable {
  id: string;
  transaction_id: string;
  kind: string;
  detail: string;
  amount_minor: Int64 | null;
  reference: string | null;
  created_at: Int64;
  resolved_at: Int64 | null;
  resolved_by: string | null;
  resolution: string | null;
}

/** Migration 020: what the console's payment search filters on, written behind the commit. */
export interface PaymentSearchTable {
  id: string;
  merchant_id: string;
  trackid: string;
  /** lower(bill_email) */
  email: string;
  amount_minor: Int64;
  status: TransactionsTable['status'];
  created_at: Int64;
}

/** Migration 020: payments inserted or changed state, not yet in payment_search. */
export interface PaymentSearchQueueTable {
  seq: Generated<Int64>;
  transaction_id: string;
}

export interface Database {
  gateway_meta: GatewayMetaTable;
  merchants: MerchantsTable;
  transactions: TransactionsTable;
  refunds: RefundsTable;
  transaction_transitions: TransactionTransitionsTable;
  outbox_events: OutboxEventsTable;
  delivery_attempts: DeliveryAttemptsTable;
  ledger_accounts: LedgerAccountsTable;
  journal_entries: JournalEntriesTable;
  postings: PostingsTable;
  processor_attempts: ProcessorAttemptsTable;
  processor_notifications: ProcessorNotificationsTable;
  attention_items: AttentionItemsTable;
  payment_search: PaymentSearchTable;
  payment_search_queue: PaymentSearchQueueTable;
}

export function toBigInt(value: Int64): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

export function toNumber(value: Int64): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer column out of safe range: ${String(value)}`);
  return n;
}

export function toNumberOrNull(value: Int64 | null): number | null {
  return value === null ? null : toNumber(value);
}
