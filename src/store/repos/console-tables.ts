// The console's tables (migration 013) as Kysely sees them. Kept apart from database.ts so the
// console's store code is self-contained: `consoleDb(store)` views the same connection with
// these tables added.
import type { Kysely } from 'kysely';
import type { Database, Int64 } from '../database.ts';
import type { StoreEngine } from '../engine.ts';

export interface ConsoleOperatorsTable {
  id: string;
  username: string;
  password_hash: string;
  totp_secret_enc: string | null;
  totp_last_step: Int64 | null;
  status: 'active' | 'disabled';
  created_at: Int64;
  updated_at: Int64;
}

export interface ConsoleMerchantPasswordsTable {
  merchant_id: string;
  password_hash: string;
  updated_at: Int64;
}

export interface ConsoleSessionsTable {
  id_hash: string;
  role: 'operator' | 'merchant';
  subject_id: string;
  created_at: Int64;
  last_seen_at: Int64;
}

export interface ConsoleAuditTable {
  id: string;
  at: Int64;
  actor_role: 'operator' | 'merchant' | 'cli' | 'anonymous';
  actor_id: string | null;
  action: string;
  target: string | null;
  details: string;
  remote_addr: string | null;
  request_id: string | null;
}

export interface ConsoleDatabase extends Database {
  console_operators: ConsoleOperatorsTable;
  console_merchant_passwords: ConsoleMerchantPasswordsTable;
  console_sessions: ConsoleSessionsTable;
  console_audit: ConsoleAuditTable;
}

export type ConsoleDb = Kysely<ConsoleDatabase>;

/** The store's Kysely, typed with the console's tables too (same connection, same pool). */
export function consoleDb(store: Pick<StoreEngine, 'db'>): ConsoleDb {
  return store.db as unknown as ConsoleDb;
}
