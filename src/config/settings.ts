// One reader per group of settings (README.md's configuration table and docs/deployment.md describe each
// setting). Every reader writes its problems into the same EnvReader, so loadConfig reports every bad key at once.
import type { Config, GatewayMode } from '../config.ts';
import type { EnvReader } from './env-reader.ts';
import { parseDuration } from './duration.ts';
import { splitList } from './list.ts';
import { decodeKey } from './secret-key.ts';
import { defaultPublicBaseUrl, isDatabaseUrl, publicBaseUrlProblem, redactUrl } from './urls.ts';

export const DEFAULT_RETRY_LADDER = '0,5s,5m,30m,2h,5h,10h,10h';

/** The mode, where the server listens, and the base of the URLs customers' browsers are sent to. */
export function readServer(r: EnvReader): Pick<Config, 'mode' | 'port' | 'host' | 'publicBaseUrl'> {
  const mode = r.oneOf<GatewayMode>('GATEWAY_MODE', 'sandbox', ['sandbox', 'live']);
  const port = r.int('PORT', 8080, 0, 65535);
  const host = r.str('HOST', '127.0.0.1');
  const publicBaseUrl = r.str('PUBLIC_BASE_URL', defaultPublicBaseUrl(host, port)).replace(/\/+$/, '');
  const problem = publicBaseUrlProblem(publicBaseUrl, mode);
  if (problem) r.problems.push(problem);
  return { mode, port, host, publicBaseUrl };
}

export function readDatabaseUrl(r: EnvReader): string {
  const databaseUrl = r.str('DATABASE_URL', 'sqlite:./data/gateway.db');
  if (!isDatabaseUrl(databaseUrl))
    r.problems.push(`DATABASE_URL must be sqlite:<path> or postgres://… (got "${redactUrl(databaseUrl)}")`);
  return databaseUrl;
}

/** The <ServiceName> in the payout-balance path: it must be safe to put into a URL path as is. */
export function readServiceName(r: EnvReader): string {
  const serviceName = r.str('SERVICE_NAME', 'Gateway');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(serviceName))
    r.problems.push(`SERVICE_NAME="${serviceName}" must be 1-64 letters, digits, _ or -`);
  return serviceName;
}

/**
 * The key itself, or in sandbox the file it is kept in when it is not set (docs/deployment.md, "The
 * secret key"). Problems never show the value.
 */
export function readSecretKey(r: EnvReader, mode: GatewayMode): Pick<Config, 'secretKey' | 'secretKeyFile'> {
  let secretKey: Buffer | undefined;
  const rawKey = r.env.GATEWAY_SECRET_KEY;
  if (rawKey) {
    secretKey = decodeKey(rawKey);
    if (!secretKey)
      r.problems.push('GATEWAY_SECRET_KEY must be at least 32 bytes, hex or base64 encoded (value not shown)');
  } else if (mode === 'live') {
    r.problems.push('GATEWAY_SECRET_KEY is required in live mode (32+ random bytes, hex or base64)');
  }
  return { secretKey, secretKeyFile: r.str('GATEWAY_SECRET_KEY_FILE', './data/secret.key') };
}

/** Notification attempts, as delays after the previous one. */
export function readRetryLadder(r: EnvReader): number[] {
  const ladderRaw = r.str('RETRY_LADDER', DEFAULT_RETRY_LADDER);
  const retryLadderMs = ladderRaw.split(',').map((step) => parseDuration(step));
  if (
    retryLadderMs.length === 0 ||
    retryLadderMs.length > 50 ||
    retryLadderMs.some((v) => v === undefined || v > 7 * 86_400_000)
  ) {
    r.problems.push(
      `RETRY_LADDER="${ladderRaw}" must be a comma-separated list of 1-50 durations (e.g. ${DEFAULT_RETRY_LADDER})`,
    );
  }
  return retryLadderMs.map((v) => v ?? 0);
}

/** The smallest and largest payment accepted (THB, inclusive). */
export function readAmounts(r: EnvReader): Pick<Config, 'minAmountMinor' | 'maxAmountMinor'> {
  const minAmountMinor = r.amount('MIN_AMOUNT', '100');
  const maxAmountMinor = r.amount('MAX_AMOUNT', '2000000');
  if (maxAmountMinor < minAmountMinor) r.problems.push('MAX_AMOUNT must not be below MIN_AMOUNT');
  return { minAmountMinor, maxAmountMinor };
}

/** The notification worker (docs/notifications.md). */
export function readDelivery(
  r: EnvReader,
): Pick<
  Config,
  | 'deliveryTimeoutMs'
  | 'deliveryConcurrency'
  | 'deliveryPerHostConcurrency'
  | 'deliveryPerHostMaxConcurrency'
  | 'deliveryPollIntervalMs'
  | 'deliveryLeaseMs'
  | 'deliveryWorker'
  | 'deliveryJitterPercent'
> {
  const perHost = r.int('DELIVERY_PER_HOST_CONCURRENCY', 4, 1, 1024);
  // The window of a healthy origin grows up to this (delivery/origin-window.ts); never below the floor.
  const perHostMax = r.int('DELIVERY_PER_HOST_MAX_CONCURRENCY', Math.max(32, perHost), perHost, 1024);
  return {
    deliveryTimeoutMs: r.duration('DELIVERY_TIMEOUT', '10s', 10, 120_000),
    deliveryConcurrency: r.int('DELIVERY_CONCURRENCY', 64, 1, 1024),
    deliveryPerHostConcurrency: perHost,
    deliveryPerHostMaxConcurrency: perHostMax,
    deliveryPollIntervalMs: r.duration('DELIVERY_POLL_INTERVAL', '1s', 10, 600_000),
    deliveryLeaseMs: r.duration('DELIVERY_LEASE', '60s', 1000, 3_600_000),
    deliveryWorker: r.bool('DELIVERY_WORKER', true),
    deliveryJitterPercent: r.int('DELIVERY_JITTER_PERCENT', 10, 0, 50),
  };
}

/** Which serverUrls notifications may go to (docs/notifications.md, "Where notifications may go"). */
export function readOutboundPolicy(
  r: EnvReader,
  mode: GatewayMode,
): Pick<Config, 'outboundAllowHttp' | 'outboundAllowList' | 'outboundPublicOnly'> {
  return {
    outboundAllowHttp: r.bool('OUTBOUND_ALLOW_HTTP', mode === 'sandbox'),
    outboundAllowList: splitList(r.str('OUTBOUND_ALLOWLIST', '')),
    // Live mode reaches public addresses only whatever this says; a sandbox shared with
    // merchants you do not trust sets it (docs/deployment.md).
    outboundPublicOnly: r.bool('OUTBOUND_PUBLIC_ONLY', false),
  };
}

/** How soon an instance sees changed merchants, and the per-merchant login and request limits. */
export function readMerchantLimits(
  r: EnvReader,
): Pick<Config, 'merchantRefreshMs' | 'failedLoginLimit' | 'failedLoginWindowMs' | 'requestRateLimit'> {
  return {
    merchantRefreshMs: r.duration('MERCHANT_REFRESH', '2s', 50, 60_000),
    failedLoginLimit: r.int('FAILED_LOGIN_LIMIT', 20, 1, 1_000_000),
    failedLoginWindowMs: r.duration('FAILED_LOGIN_WINDOW', '1m', 1000, 86_400_000),
    requestRateLimit: r.int('RATE_LIMIT_PER_MERCHANT_PER_SECOND', 2000, 1, 1_000_000),
  };
}

/** Slow clients, connections and load shedding (docs/deployment.md, "Limits under load and slow clients"). */
export function readHttpLimits(
  r: EnvReader,
): Pick<
  Config,
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'keepAliveTimeoutMs'
  | 'maxConnections'
  | 'listenSockets'
  | 'maxInFlight'
  | 'shedDelayMs'
  | 'shutdownIdleGraceMs'
> {
  return {
    headersTimeoutMs: r.duration('HEADERS_TIMEOUT', '10s', 100, 600_000),
    requestTimeoutMs: r.duration('REQUEST_TIMEOUT', '30s', 100, 600_000),
    keepAliveTimeoutMs: r.duration('KEEP_ALIVE_TIMEOUT', '72s', 100, 600_000),
    maxConnections: r.int('MAX_CONNECTIONS', 4096, 1, 1_000_000),
    listenSockets: r.int('LISTEN_SOCKETS', 512, 1, 1024),
    maxInFlight: r.int('MAX_IN_FLIGHT', 512, 1, 1_000_000),
    shedDelayMs: r.duration('SHED_DELAY', '100ms', 0, 5_000),
    shutdownIdleGraceMs: r.duration('SHUTDOWN_IDLE_GRACE', '1s', 0, 60_000),
  };
}

/** /metrics: on the API port, or on a port of its own; optionally behind a bearer token. */
export function readMetrics(r: EnvReader): Pick<Config, 'metricsPort' | 'metricsHost' | 'metricsToken'> {
  return {
    metricsPort: r.env.METRICS_PORT ? r.int('METRICS_PORT', 9464, 0, 65535) : undefined,
    metricsHost: r.str('METRICS_HOST', '127.0.0.1'),
    metricsToken: r.env.METRICS_TOKEN || undefined,
  };
}

/** The web console and its sessions (docs/console.md). */
export function readConsole(
  r: EnvReader,
): Pick<
  Config,
  'consoleEnabled' | 'consoleIdleTimeoutMs' | 'consoleSessionLifetimeMs' | 'consoleLoginLimit' | 'consoleLoginWindowMs'
> {
  return {
    consoleEnabled: r.bool('CONSOLE_ENABLED', true),
    consoleIdleTimeoutMs: r.duration('CONSOLE_IDLE_TIMEOUT', '30m', 10_000, 86_400_000),
    consoleSessionLifetimeMs: r.duration('CONSOLE_SESSION_LIFETIME', '12h', 60_000, 30 * 86_400_000),
    consoleLoginLimit: r.int('CONSOLE_LOGIN_LIMIT', 10, 1, 1_000_000),
    consoleLoginWindowMs: r.duration('CONSOLE_LOGIN_WINDOW', '15m', 1000, 86_400_000),
  };
}
