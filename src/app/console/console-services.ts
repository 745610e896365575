// The console's use cases over one store, built by the composition root (the HTTP console) or
// from a bare store (the CLI), so both write the same rows and the same audit entries.
import type { Config } from '../../config.ts';
import type { SecretKey } from '../../domain/credentials.ts';
import { ConsoleAccounts } from './console-accounts.ts';
import { ConsoleAudit } from './console-audit.ts';
import { ConsoleSessions } from './console-sessions.ts';
import type { Store } from '../ports/store.ts';
import { WindowCounter } from '../rate-limiter.ts';

export type ConsoleServices = {
  accounts: ConsoleAccounts;
  sessions: ConsoleSessions;
  audit: ConsoleAudit;
  /** Failed logins per client address and per account (CONSOLE_LOGIN_LIMIT per CONSOLE_LOGIN_WINDOW). */
  failedLogins: WindowCounter;
};

export function createConsoleServices(
  config: Config,
  store: Pick<Store, 'consoleAccounts' | 'merchants'>,
  key: SecretKey,
  now: () => number = Date.now,
): ConsoleServices {
  const repo = store.consoleAccounts;
  const accounts = new ConsoleAccounts({
    repo,
    merchants: store.merchants,
    key,
    now,
    issuer: `${config.serviceName} console`,
  });
  return {
    accounts,
    sessions: new ConsoleSessions({
      repo,
      accounts,
      key,
      now,
      policy: { idleTimeoutMs: config.consoleIdleTimeoutMs, lifetimeMs: config.consoleSessionLifetimeMs },
    }),
    audit: new ConsoleAudit(repo, now),
    failedLogins: new WindowCounter(config.consoleLoginLimit, config.consoleLoginWindowMs, now, 10_000),
  };
}
