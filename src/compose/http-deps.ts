// What the HTTP app gets from the services (composition root): each route its own use cases,
// the merchant directory's authenticate and plain configuration values, so no route reaches
// into the whole services bag or the configuration. main.ts and the tests call it the same way.
import { consoleDepsFrom } from './console-deps.ts';
import { HostedPage } from '../app/hosted-page.ts';
import { payoutBalance } from '../app/ledger-operations.ts';
import { findMerchantTransaction } from '../app/query-status.ts';
import type { Services } from '../app/services.ts';
import type { ApiDeps, HttpDeps, ProcessorRoute } from '../http/build-app.ts';
import { registerKbankNotifyRoute } from '../connectors/kbank/notify-route.ts';
import { registerScbConfirmRoute } from '../connectors/scb/confirm-route.ts';

export function httpDepsFrom(services: Services): HttpDeps {
  const { config, storeHealth, metrics } = services;
  return {
    server: {
      headersTimeoutMs: config.headersTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      maxConnections: config.maxConnections,
    },
    edge: {
      maxInFlight: config.maxInFlight,
      shedDelayMs: config.shedDelayMs,
      onShed: () => metrics.requestShed(),
      trackInFlight: (current) => metrics.trackInFlight(current),
      answers: metrics,
      isStoreUnavailable: storeHealth.isUnavailable,
      onStoreUnavailable: () => storeHealth.reportUnavailable(),
    },
    api: apiDepsFrom(services),
    publicBaseUrl: config.publicBaseUrl,
    console: consoleDepsFrom(services, services.config),
    processorRoutes: processorRoutesFrom(services),
  };
}

/**
 * The running connector's own routes: KBank's callback (connectors/kbank/notify-route.ts), SCB's
 * confirmation (connectors/scb/confirm-route.ts).
 */
function processorRoutesFrom(services: Services): ProcessorRoute[] {
  const { kbank, scb, processorConnector } = services.config;
  const { receiveNotification } = services.processor;
  if (processorConnector === 'scb' && scb)
    return [
      (app) =>
        registerScbConfirmRoute(app, {
          pathToken: scb.confirmPathToken,
          allowCidrs: scb.confirmAllowCidrs,
          receive: (body, contentType, clientAddress, id) =>
            receiveNotification.receive(body, contentType, clientAddress, id),
        }),
    ];
  if (processorConnector !== 'kbank' || !kbank) return [];
  return [
    (app) =>
      registerKbankNotifyRoute(app, {
        pathToken: kbank.callbackPathToken,
        allowCidrs: kbank.callbackAllowCidrs,
        receive: (body, contentType, clientAddress) => receiveNotification.receive(body, contentType, clientAddress),
      }),
  ];
}

function apiDepsFrom(services: Services): ApiDeps {
  const { config, directory, metrics } = services;
  const authenticate = (merchantId: string, password: string, clientAddress: string) =>
    directory.authenticate(merchantId, password, clientAddress);
  const sandbox = config.mode === 'sandbox';
  const page = new HostedPage({
    payments: services.transactions,
    connector: services.processor.connector,
    end: services.processor.end,
    paymentQr: services.processor.paymentQr,
    merchants: services.merchants,
    directory,
    complete: services.complete,
    notificationWaits: services.notificationWaits,
    returnWaitForNotificationMs: config.returnWaitForNotificationMs,
    key: services.key,
    now: services.now,
  });
  return {
    health: { ready: () => services.storeHealth.ready(), storeKind: services.store.kind },
    metrics: { metrics, onApiPort: config.metricsPort === undefined, token: config.metricsToken },
    initiate: {
      authenticate,
      initiate: services.initiate,
      initiated: (replayed) => metrics.initiated(replayed),
      outboundPolicy: services.outboundPolicy,
      minAmountMinor: config.minAmountMinor,
      maxAmountMinor: config.maxAmountMinor,
    },
    status: {
      authenticate,
      findTransaction: (merchantId, reference) => findMerchantTransaction(services.transactions, merchantId, reference),
      publicBaseUrl: config.publicBaseUrl,
    },
    balance: {
      authenticate,
      payoutBalance: (merchant) => payoutBalance(services.ledger, merchant),
      serviceName: config.serviceName,
    },
    refund: { authenticate, refund: services.refund },
    sandboxComplete: { authenticate, complete: services.complete, sandbox, publicBaseUrl: config.publicBaseUrl },
    redirectPage: {
      page,
      key: services.key,
      now: services.now,
      publicBaseUrl: config.publicBaseUrl,
      sandbox,
      thaiQrBillerId: config.thaiQrBillerId,
    },
    redirectQrPng: { page, thaiQrBillerId: config.thaiQrBillerId },
  };
}
