// Console sessions. The browser holds a random 256-bit token in an HttpOnly cookie; the store
// holds only HMAC(gateway key, token), so neither a database copy nor a log line lets anyone
// log in. A session ends at logout, after CONSOLE_IDLE_TIMEOUT without a request, after
// CONSOLE_SESSION_LIFETIME in any case, and when its operator or merchant is disabled.
import { createHmac } from 'node:crypto';
import { hmacKey, type SecretKey } from '../../domain/credentials.ts';
import { randomToken } from '../../domain/ids.ts';
import type { ConsoleAccountStore } from '../ports/console.ts';
import type { ConsoleRole } from '../../domain/console-account.ts';
import type { ConsoleAccounts, LoginSubject } from './console-accounts.ts';

export const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type ActiveSession = { idHash: string; subject: LoginSubject; createdAt: number };

export type SessionPolicy = { idleTimeoutMs: number; lifetimeMs: number };

export class ConsoleSessions {
  readonly #repo: ConsoleAccountStore;
  readonly #accounts: ConsoleAccounts;
  readonly #key: SecretKey;
  readonly #now: () => number;
  readonly #policy: SessionPolicy;

  constructor(deps: {
    repo: ConsoleAccountStore;
    accounts: ConsoleAccounts;
    key: SecretKey;
    now: () => number;
    policy: SessionPolicy;
  }) {
    this.#repo = deps.repo;
    this.#accounts = deps.accounts;
    this.#key = deps.key;
    this.#now = deps.now;
    this.#policy = deps.policy;
  }

  hashOf(token: string): string {
    return createHmac('sha256', hmacKey(this.#key)).update('console-session\0').update(token).digest('base64url');
  }

  /** A new session; the returned token goes into the cookie and nowhere else. */
  async start(role: ConsoleRole, subjectId: string): Promise<{ token: string; idHash: string }> {
    const token = randomToken(32);
    const now = this.#now();
    const idHash = this.hashOf(token);
    await this.#repo.insertSession({ idHash, role, subjectId, createdAt: now, lastSeenAt: now });
    // Now and then, forget sessions nobody will come back for (keeps the table small).
    if (Math.random() < 0.05)
      await this.#repo.deleteStaleSessions(now - this.#policy.idleTimeoutMs, now - this.#policy.lifetimeMs);
    return { token, idHash };
  }

  /** The live session behind a cookie token, or undefined (unknown, idle too long, too old, or subject disabled). */
  async resolve(token: string | undefined): Promise<ActiveSession | undefined> {
    if (token === undefined || !SESSION_TOKEN.test(token)) return undefined;
    const idHash = this.hashOf(token);
    const session = await this.#repo.findSession(idHash);
    if (!session) return undefined;
    const now = this.#now();
    if (now - session.lastSeenAt >= this.#policy.idleTimeoutMs || now - session.createdAt >= this.#policy.lifetimeMs) {
      await this.#repo.deleteSession(idHash);
      return undefined;
    }
    const subject = await this.#accounts.subjectActive(session.role, session.subjectId);
    if (!subject) {
      await this.#repo.deleteSession(idHash);
      return undefined;
    }
    // One write per session per few seconds at most, not one per page view.
    if (now - session.lastSeenAt >= Math.min(60_000, this.#policy.idleTimeoutMs / 10))
      await this.#repo.touchSession(idHash, now);
    return { idHash, subject, createdAt: session.createdAt };
  }

  async end(idHash: string): Promise<void> {
    await this.#repo.deleteSession(idHash);
  }
}
