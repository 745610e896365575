// Console accounts, sessions and the audit log: SQL only, no rules (the use cases in app/console/ decide).
import type { AuditCursor } from '../../app/ports/console.ts';
import { sql } from 'kysely';
import { toNumber } from '../database.ts';
import { consoleDb, type ConsoleDb } from './console-tables.ts';
import type { StoreEngine } from '../engine.ts';
import type { AuditEntry, ConsoleRole, OperatorRecord, SessionRecord } from '../../domain/console-account.ts';

export class ConsoleRepo {
  readonly #db: ConsoleDb;
  constructor(store: Pick<StoreEngine, 'db'>) {
    this.#db = consoleDb(store);
  }

  // ---- operators ----

  async insertOperator(o: OperatorRecord): Promise<boolean> {
    const result = await this.#db
      .insertInto('console_operators')
      .values({
        id: o.id,
        username: o.username,
        password_hash: o.passwordHash,
        totp_secret_enc: o.totpSecretSealed,
        totp_last_step: o.totpLastStep === null ? null : o.totpLastStep.toString(),
        status: o.status,
        created_at: o.createdAt,
        updated_at: o.updatedAt,
      })
      .onConflict((oc) => oc.column('username').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findOperatorByUsername(username: string): Promise<OperatorRecord | undefined> {
    const row = await this.#db
      .selectFrom('console_operators')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirst();
    return row ? operatorFromRow(row) : undefined;
  }

  async findOperatorById(id: string): Promise<OperatorRecord | undefined> {
    const row = await this.#db.selectFrom('console_operators').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? operatorFromRow(row) : undefined;
  }

  async listOperators(): Promise<OperatorRecord[]> {
    const rows = await this.#db.selectFrom('console_operators').selectAll().orderBy('username').execute();
    return rows.map(operatorFromRow);
  }

  async setOperatorStatus(
    username: string,
    status: 'active' | 'disabled',
    now: number,
  ): Promise<OperatorRecord | undefined> {
    const row = await this.#db
      .updateTable('console_operators')
      .set({ status, updated_at: now })
      .where('username', '=', username)
      .returningAll()
      .executeTakeFirst();
    return row ? operatorFromRow(row) : undefined;
  }

  async setOperatorPassword(username: string, passwordHash: string, now: number): Promise<OperatorRecord | undefined> {
    const row = await this.#db
      .updateTable('console_operators')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('username', '=', username)
      .returningAll()
      .executeTakeFirst();
    return row ? operatorFromRow(row) : undefined;
  }

  /**
   * Records a TOTP step as used, only if it is later than the last one (a code is good once, even with two logins
   * racing).
   */
  async useTotpStep(operatorId: string, step: bigint): Promise<boolean> {
    const result = await this.#db
      .updateTable('console_operators')
      .set({ totp_last_step: step.toString() })
      .where('id', '=', operatorId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step.toString())]))
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) === 1n;
  }

  // ---- merchants' console passwords ----

  async setMerchantPassword(merchantId: string, passwordHash: string, now: number): Promise<void> {
    await this.#db
      .insertInto('console_merchant_passwords')
      .values({ merchant_id: merchantId, password_hash: passwordHash, updated_at: now })
      .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ password_hash: passwordHash, updated_at: now }))
      .execute();
  }

  async merchantPasswordHash(merchantId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('console_merchant_passwords')
      .select('password_hash')
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return row?.password_hash;
  }

  async merchantsWithConsolePassword(): Promise<Set<string>> {
    const rows = await this.#db.selectFrom('console_merchant_passwords').select('merchant_id').execute();
    return new Set(rows.map((r) => r.merchant_id));
  }

  // ---- sessions ----

  async insertSession(s: SessionRecord): Promise<void> {
    await this.#db
      .insertInto('console_sessions')
      .values({
        id_hash: s.idHash,
        role: s.role,
        subject_id: s.subjectId,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
      })
      .execute();
  }

  async findSession(idHash: string): Promise<SessionRecord | undefined> {
    const row = await this.#db
      .selectFrom('console_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return row
      ? {
          idHash: row.id_hash,
          role: row.role,
          subjectId: row.subject_id,
          createdAt: toNumber(row.created_at),
          lastSeenAt: toNumber(row.last_seen_at),
        }
      : undefined;
  }

  async touchSession(idHash: string, now: number): Promise<void> {
    await this.#db.updateTable('console_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.#db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteSessionsOf(role: ConsoleRole, subjectId: string): Promise<void> {
    await this.#db
      .deleteFrom('console_sessions')
      .where('role', '=', role)
      .where('subject_id', '=', subjectId)
      .execute();
  }

  /** Removes sessions idle since before `idleBefore` or created before `createdBefore`. */
  async deleteStaleSessions(idleBefore: number, createdBefore: number): Promise<void> {
    await this.#db
      .deleteFrom('console_sessions')
      .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('created_at', '<', createdBefore)]))
      .execute();
  }

  // ---- audit log ----

  async insertAudit(e: AuditEntry): Promise<void> {
    await this.#db
      .insertInto('console_audit')
      .values({
        id: e.id,
        at: e.at,
        actor_role: e.actorRole,
        actor_id: e.actorId,
        action: e.action,
        target: e.target,
        details: JSON.stringify(e.details),
        remote_addr: e.remoteAddr,
        request_id: e.requestId,
      })
      .execute();
  }

  /** Newest first, keyset-paged on (at, id). */
  async listAudit(options: { limit: number; before?: AuditCursor; action?: string }): Promise<AuditEntry[]> {
    let query = this.#db.selectFrom('console_audit').selectAll();
    if (options.action !== undefined) query = query.where('action', '=', options.action);
    if (options.before) query = query.where(sql<boolean>`(at, id) < (${options.before.at}, ${options.before.id})`);
    const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      at: toNumber(r.at),
      actorRole: r.actor_role,
      actorId: r.actor_id,
      action: r.action,
      target: r.target,
      details: JSON.parse(r.details) as Record<string, unknown>,
      remoteAddr: r.remote_addr,
      requestId: r.request_id,
    }));
  }
}

function operatorFromRow(row: {
  id: string;
  username: string;
  password_hash: string;
  totp_secret_enc: string | null;
  totp_last_step: number | bigint | string | null;
  status: 'active' | 'disabled';
  created_at: number | bigint | string;
  updated_at: number | bigint | string;
}): OperatorRecord {
  return {
    id: row.id,
    username: row.username,
    passwordHash: row.password_hash,
    totpSecretSealed: row.totp_secret_enc,
    totpLastStep: row.totp_last_step === null ? null : BigInt(row.totp_last_step),
    status: row.status,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}
