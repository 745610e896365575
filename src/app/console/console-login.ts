// Logging in to the web console and out of it (docs/console.md "Sessions and security"). Failed
// logins are counted per client address and per account, and an attempt over the limit is
// refused before any password is hashed, so a flood costs no scrypt. Every outcome but a
// throttled one is audited (the limiter already refused that one), and each login issues a new
// session token: a token planted before the login is never the one that gets in.
import type { ConsoleRole } from '../../domain/console-account.ts';
import type { WindowCounter } from '../rate-limiter.ts';
import type { ConsoleAccounts, LoginSubject } from './console-accounts.ts';
import { auditActorOf, type AuditOrigin, type ConsoleAudit } from './console-audit.ts';
import type { ActiveSession, ConsoleSessions } from './console-sessions.ts';

export type LoginAttempt = {
  role: ConsoleRole;
  /** An operator's username or a merchantid. */
  username: string;
  password: string;
  /** The operator's current TOTP code; ignored for merchants. */
  totp: string;
  origin: AuditOrigin;
};

export type LoginOutcome =
  | { ok: true; sessionToken: string; subject: LoginSubject }
  | { ok: false; reason: 'throttled' | 'credentials' | 'disabled' };

export type ConsoleLoginDeps = {
  accounts: ConsoleAccounts;
  sessions: ConsoleSessions;
  audit: ConsoleAudit;
  /** Failed logins per client address and per account (CONSOLE_LOGIN_LIMIT per CONSOLE_LOGIN_WINDOW). */
  failedLogins: WindowCounter;
};

export class ConsoleLogin {
  readonly #deps: ConsoleLoginDeps;
  constructor(deps: ConsoleLoginDeps) {
    this.#deps = deps;
  }

  async attempt(input: LoginAttempt): Promise<LoginOutcome> {
    const { accounts, sessions, audit, failedLogins } = this.#deps;
    const { role, username, origin } = input;
    const keys = [`ip:${origin.remoteAddr}`, `account:${role}:${username.toLowerCase()}`];
    if (keys.some((key) => failedLogins.exceeded(key))) return { ok: false, reason: 'throttled' };
    const result =
      role === 'operator'
        ? await accounts.loginOperator(username, input.password, input.totp)
        : await accounts.loginMerchant(username, input.password);
    if (!result.ok) {
      for (const key of keys) failedLogins.hit(key);
      await audit.record(
        { role: 'anonymous', id: null },
        'login.failed',
        `${role}:${username}`,
        { reason: result.reason },
        origin,
      );
      return result;
    }
    const { token } = await sessions.start(result.subject.role, result.subject.id);
    await audit.record(auditActorOf(result.subject), 'login', null, {}, origin);
    return { ok: true, sessionToken: token, subject: result.subject };
  }

  async logout(session: ActiveSession, origin: AuditOrigin): Promise<void> {
    await this.#deps.sessions.end(session.idHash);
    await this.#deps.audit.record(auditActorOf(session.subject), 'logout', null, {}, origin);
  }
}
