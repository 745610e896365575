// Everything the web console's routes use, and nothing else: the console's use cases, the two
// plain reads that need no rule of their own, and the configuration as values. Built once by
// the composition root (compose/console-deps.ts); the routes never see the services or the store.
import type { ConsoleAttention } from '../../app/console/attention.ts';
import type { ConsoleLedger } from '../../app/console/console-ledger.ts';
import type { ConsoleLogin } from '../../app/console/console-login.ts';
import type { ConsoleSessions } from '../../app/console/console-sessions.ts';
import type { ConsoleMerchantAdmin } from '../../app/console/merchant-admin.ts';
import type { ConsolePaymentActions } from '../../app/console/payment-actions.ts';
import type { ConsolePaymentReads } from '../../app/console/payment-reads.ts';
import type { ConsoleAudit } from '../../app/console/console-audit.ts';
import type { OutboxReads } from '../../app/ports/store.ts';
import type { StoreHealth } from '../../app/store-health.ts';
import type { SecretKey } from '../../domain/credentials.ts';

export type ConsoleDeps = {
  /** CONSOLE_ENABLED: when false nothing is registered and /console/… is the API's 404. */
  enabled: boolean;
  /** `<PUBLIC_BASE_URL path>/console`: every link, form action and cookie path starts here. */
  root: string;
  /** Cookies get `Secure` in live mode or behind an https PUBLIC_BASE_URL. */
  secureCookies: boolean;
  /** Sandbox mode: payments can be completed from their page. */
  sandbox: boolean;
  /** The gateway key: CSRF form tokens are HMACs under it. */
  key: SecretKey;
  now: () => number;
  /** A store outage is answered 503 and reported to readiness, like the API's. */
  storeHealth: Pick<StoreHealth, 'isUnavailable' | 'reportUnavailable'>;

  sessions: Pick<ConsoleSessions, 'resolve'>;
  login: ConsoleLogin;
  payments: ConsolePaymentReads;
  paymentActions: ConsolePaymentActions;
  ledger: ConsoleLedger;
  merchants: ConsoleMerchantAdmin;
  /** The needs-attention page (operators only), and the open count in the operators' menu. */
  attention: ConsoleAttention;
  /** The notifications page lists the outbox as `delivery list` does (scoped by the route). */
  notifications: Pick<OutboxReads, 'list'>;
  /** The audit log page (operators only). */
  auditLog: Pick<ConsoleAudit, 'list'>;
};

/** What the request plumbing and the page shell need: paths, cookies, the CSRF key, the menu's count. */
export type ConsoleSite = Pick<ConsoleDeps, 'root' | 'secureCookies' | 'key'> & {
  attention: Pick<ConsoleAttention, 'openCount'>;
};
