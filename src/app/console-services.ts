// The console's use cases over one store, built from the gateway's Services (the HTTP console)
// or from a bare store (the CLI), so both write the same rows and the same audit entries.
import type { Config } from '../config.ts';
import type { SecretKey } from '../domain/credentials.ts';
import { ConsoleRepo } from '../store/repos/console.repo.ts';
import { MerchantsRepo } from '../store/repos/merchants.repo.ts';
import type { StoreEngine } from '../store/engine.ts';
import { ConsoleAccounts } from './console-accounts.ts';
import { ConsoleAudit } from './console-audit.ts';
import { ConsoleSessions } from './console-sessions.ts';
import { WindowCounter } from './rate-limiter.ts';

export type ConsoleServices = {
  repo: ConsoleRepo;
  accounts: ConsoleAccounts;
  sessions: ConsoleSessions;
  audit: ConsoleAudit;
  /** Failed logins per client address and per account (CONSOLE_LOGIN_LIMIT per CONSOLE_LOGIN_WINDOW). */
  failedLogins: WindowCounter;
};

export function createConsoleServices(
  config: Config,
  store: StoreEngine,
  key: SecretKey,
  now: () => number = Date.now,
  merchants = new MerchantsRepo(store.db),
): ConsoleServices {
  const repo = new ConsoleRepo(store);
  const accounts = new ConsoleAccounts({ repo, merchants, key, now, issuer: `${config.serviceName} console` });
  return {
    repo,
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
