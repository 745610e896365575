// The console's audit log: who did what, to what, when and from where. Every console action
// (and the CLI's console commands) writes one entry through here, after the action succeeded
// or, for logins, whatever the outcome. Details never carry secrets: keys that look like one
// are replaced before anything is stored, unless the value is a yes/no flag (whether an operator
// has two-factor is no secret; its secret is). The log is read back with each operator named by
// username, not by the internal id an entry stores (docs/console.md "Audit log").
import { uuidv7 } from '../../domain/ids.ts';
import type { AuditCursor, ConsoleAccountStore } from '../ports/console.ts';
import type { AuditEntry } from '../../domain/console-account.ts';
import type { LoginSubject } from './console-accounts.ts';

export type AuditActor = { role: AuditEntry['actorRole']; id: string | null };
export type AuditOrigin = { remoteAddr: string | null; requestId: string | null };

/** Who asked for a console action, and from where: its audit entry names both. */
export type ConsoleActor = { who: LoginSubject; origin: AuditOrigin };

export function auditActorOf(subject: LoginSubject): AuditActor {
  return { role: subject.role, id: subject.id };
}

const SECRET_KEY = /pass|secret|token|totp|otp|csrf|cookie|key/i;
const MAX_DETAIL_TEXT = 500;

/** A copy of `details` safe to store: secret-looking keys redacted (but flags kept), long strings cut. */
export function auditSafeDetails(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(details)) {
    if (SECRET_KEY.test(name) && typeof value !== 'boolean') out[name] = '[redacted]';
    else if (typeof value === 'string')
      out[name] = value.length > MAX_DETAIL_TEXT ? `${value.slice(0, MAX_DETAIL_TEXT)}…` : value;
    else if (value === null || typeof value === 'number' || typeof value === 'boolean') out[name] = value;
    else out[name] = String(value);
  }
  return out;
}

/** An entry as the audit page shows it: `actorName` is an operator's username, a merchant's id. */
export type AuditEntryView = AuditEntry & { actorName: string | null };

export class ConsoleAudit {
  readonly #repo: ConsoleAccountStore;
  readonly #now: () => number;
  constructor(repo: ConsoleAccountStore, now: () => number) {
    this.#repo = repo;
    this.#now = now;
  }

  async record(
    actor: AuditActor,
    action: string,
    target: string | null,
    details: Record<string, unknown>,
    origin: AuditOrigin,
  ): Promise<void> {
    const at = this.#now();
    await this.#repo.insertAudit({
      id: uuidv7(at),
      at,
      actorRole: actor.role,
      actorId: actor.id,
      action,
      target,
      details: auditSafeDetails(details),
      remoteAddr: origin.remoteAddr,
      requestId: origin.requestId,
    });
  }

  /** Newest first, keyset-paged; an operator removed since is shown by its stored id. */
  async list(options: { limit: number; before?: AuditCursor; action?: string }): Promise<AuditEntryView[]> {
    const entries = await this.#repo.listAudit(options);
    const names = entries.some((e) => e.actorRole === 'operator')
      ? new Map((await this.#repo.listOperators()).map((o) => [o.id, o.username]))
      : new Map<string, string>();
    return entries.map((e) => ({
      ...e,
      actorName:
        e.actorId === null ? null : e.actorRole === 'operator' ? (names.get(e.actorId) ?? e.actorId) : e.actorId,
    }));
  }
}
