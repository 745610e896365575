// Builds the web console's dependencies from the gateway's services: its use cases over the
// same ports and use cases the API and the CLI run on, and the configuration it reads, as plain
// values. The one place that knows both the services bag and what the console needs of it.
import type { Config } from '../config.ts';
import { ConsoleAttention } from '../app/console/attention.ts';
import { ConsoleLedger } from '../app/console/console-ledger.ts';
import { ConsoleLogin } from '../app/console/console-login.ts';
import { createConsoleServices } from '../app/console/console-services.ts';
import { ConsoleMerchantAdmin } from '../app/console/merchant-admin.ts';
import { ConsolePaymentActions } from '../app/console/payment-actions.ts';
import { ConsolePaymentReads } from '../app/console/payment-reads.ts';
import { LedgerOperations } from '../app/ledger-operations.ts';
import type { Services } from '../app/services.ts';
import type { ConsoleDeps } from '../http/console/console-deps.ts';

export function consoleDepsFrom(services: Services, config: Config): ConsoleDeps {
  const { store, key, now } = services;
  const core = createConsoleServices(config, store, key, now);
  const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '');
  const payments = new ConsolePaymentReads({
    reads: store.consoleReads,
    payments: store.payments,
    outbox: store.outbox,
    ledger: store.ledger,
    refunds: store.refunds,
    processorAttempts: store.processorAttempts,
    processorNotifications: store.processorNotifications,
    attention: store.attention,
  });
  return {
    enabled: config.consoleEnabled,
    root: `${basePath}/console`,
    secureCookies: config.mode === 'live' || config.publicBaseUrl.startsWith('https:'),
    sandbox: config.mode === 'sandbox',
    key,
    now,
    storeHealth: services.storeHealth,
    sessions: core.sessions,
    login: new ConsoleLogin(core),
    payments,
    paymentActions: new ConsolePaymentActions({
      payments,
      store,
      refund: services.refund,
      recordTransfer: services.recordTransfer,
      complete: services.complete,
      audit: core.audit,
      sandbox: config.mode === 'sandbox',
      now,
      // Listeners subscribe after this runs (the delivery worker starts later): read the list per call.
      wake: (transactionId, eventId) => {
        for (const listener of services.finalisedListeners) listener(transactionId, eventId);
      },
    }),
    ledger: new ConsoleLedger({
      ledger: new LedgerOperations({ store, ledger: store.ledger, merchants: store.merchants, now }),
      reads: store.consoleReads,
      merchants: services.manageMerchants,
      audit: core.audit,
    }),
    merchants: new ConsoleMerchantAdmin({
      manage: services.manageMerchants,
      directory: services.directory,
      accounts: core.accounts,
      consoleAccounts: store.consoleAccounts,
      audit: core.audit,
    }),
    attention: new ConsoleAttention({
      attention: store.attention,
      reads: store.consoleReads,
      complete: services.complete,
      audit: core.audit,
      count: services.openAttention,
      now,
    }),
    notifications: store.outbox,
    auditLog: core.audit,
  };
}
