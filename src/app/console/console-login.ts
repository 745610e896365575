// Logging in to the web console and out of it (docs/console.md "Sessions and security"). Login
// attempts are counted per client address and per account before any password is hashed (and
// given back when they succeed), so a flood costs no scrypt and concurrent guesses cannot pass
// the limit. Every outcome but a throttled one is audited (the limiter already refused that one),
// and each login issues a new session token: a token planted before the login is never the one that gets in.
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
    // Counted before the password is hashed, so attempts racing each other (each waits ~90 ms for
    // scrypt) cannot all pass a check that only a finished failure would have tripped; given back
    // on success. An attempt that throws (the store) stays counted: its answer may tell a right
    // password from a wrong one.
    const taken = failedLogins.take(keys);
    if (taken === undefined) return { ok: false, reason: 'throttled' };
    const result =
      role === 'operator'
        ? await accounts.loginOperator(username, input.password, input.totp)
        : await accounts.loginMerchant(username, input.password);
    if (!result.ok) {
      await audit.record(
        { role: 'anonymous', id: null },
        'login.failed',
        `${role}:${username}`,
        { reason: result.reason },
        origin,
      );
      return result;
    }
    failedLogins.release(taken);
    const { token } = await sessions.start(result.subject.role, result.subject.id);
    await audit.record(auditActorOf(result.subject), 'login', null, {}, origin);
    return { ok: true, sessionToken: token, subject: result.subject };
  }

  async logout(session: ActiveSession, origin: AuditOrigin): Promise<void> {
    await this.#deps.sessions.end(session.idHash);
    await this.#deps.audit.record(auditActorOf(session.subject), 'logout', null, {}, origin);
  }
}
