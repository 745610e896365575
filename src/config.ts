// The only reader of the environment. Every key is validated at start; all problems are
// reported together in one message (ConfigError) so an operator fixes them in one pass.
// The groups of settings are read in config/settings.ts, with parsers of their own in config/.
import { readFileSync, existsSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { EnvReader, type Env } from './config/env-reader.ts';
import {
  readAmounts,
  readConsole,
  readDatabaseUrl,
  readDelivery,
  readHttpLimits,
  readMerchantLimits,
  readMetrics,
  readOutboundPolicy,
  readRetryLadder,
  readSecretKey,
  readServer,
  readServiceName,
} from './config/settings.ts';
import { parseTrustProxy, type TrustProxy } from './config/trust-proxy.ts';
import {
  KBANK_PRODUCTION_HOST,
  readProcessor,
  type KbankSettings,
  type ProcessorConnectorName,
} from './config/kbank.ts';
import { readScb, SCB_PRODUCTION_HOST, type ScbSettings } from './config/scb.ts';

export { parseDuration } from './config/duration.ts';
export { DEFAULT_RETRY_LADDER } from './config/settings.ts';
export type { TrustProxy } from './config/trust-proxy.ts';
export type { KbankSettings, ProcessorConnectorName } from './config/kbank.ts';
export type { ScbQrMode, ScbSettings } from './config/scb.ts';
export { redactUrl } from './config/urls.ts';

export type GatewayMode = 'sandbox' | 'live';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type Config = {
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string;
  /** PostgreSQL connections per instance. */
  databasePoolSize: number;
  mode: GatewayMode;
  serviceName: string;
  logLevel: LogLevel;
  /** Hex or base64 key ≥ 32 bytes; undefined in sandbox means "use ./data/secret.key". */
  secretKey: Buffer | undefined;
  secretKeyFile: string;
  bodyLimitBytes: number;
  minAmountMinor: bigint;
  maxAmountMinor: bigint;
  transactionTtlMs: number;
  retryLadderMs: number[];
  deliveryTimeoutMs: number;
  deliveryConcurrency: number;
  /** Notifications in flight to one origin (scheme://host:port) per instance at first: its window's floor. */
  deliveryPerHostConcurrency: number;
  /** A healthy origin's window grows up to this many (delivery/origin-window.ts). */
  deliveryPerHostMaxConcurrency: number;
  /** Fallback poll for due deliveries (new events also wake the worker directly). */
  deliveryPollIntervalMs: number;
  /** How long a claimed delivery stays owned by an instance that stops answering (crash). */
  deliveryLeaseMs: number;
  /**
   * `serve` delivers notifications itself (default). false (PostgreSQL only): it does not, and
   * wakes the `deliver` processes that must run beside it.
   */
  deliveryWorker: boolean;
  /** Retry delays vary by ± this percentage so retries of many events do not arrive in lockstep. */
  deliveryJitterPercent: number;
  outboundAllowHttp: boolean;
  outboundAllowList: string[];
  /**
   * Sandbox: notifications go to public addresses only (as in live mode), and what a non-public
   * target answered is not recorded (docs/deployment.md, docs/notifications.md).
   */
  outboundPublicOnly: boolean;
  merchantRefreshMs: number;
  failedLoginLimit: number;
  failedLoginWindowMs: number;
  requestRateLimit: number;
  sweepIntervalMs: number;
  shutdownTimeoutMs: number;
  webhookSecretOverlapMs: number;
  createDemoMerchant: boolean;
  migrateOnStart: boolean;
  /** Thai QR biller id (13-digit tax id + 2-digit suffix) shown in the hosted page's QR code. */
  thaiQrBillerId: string;
  /** Which proxies' X-Forwarded-For is believed (Fastify's trustProxy): false, true, or addresses/CIDRs. */
  trustProxy: TrustProxy;
  /** A client must finish sending its headers within this time (slow-header clients are cut off). */
  headersTimeoutMs: number;
  /** A client must finish sending its whole request (headers and body) within this time. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Open client connections per instance; more are closed on accept. */
  maxConnections: number;
  /**
   * Sockets listening on the API port (SO_REUSEPORT, Linux): the event loop accepts up to this
   * many new connections per turn instead of one (http/edge/acceptor-pool.ts). 1 = a single listener.
   */
  listenSockets: number;
  /** Requests being worked on at once; more are answered 503 + Retry-After without being worked on (load shedding). */
  maxInFlight: number;
  /** How long a shed request's 503 is held before it is sent (0: at once); see http/edge/load-shedding.ts. */
  shedDelayMs: number;
  /** On SIGTERM, idle keep-alive connections stay open this long so requests already on the wire are answered. */
  shutdownIdleGraceMs: number;
  /**
   * How long the hosted page waits for the first notification attempt before sending the customer back
   * (0: no wait).
   */
  returnWaitForNotificationMs: number;
  /** Serve /metrics on this separate port instead of the API port (undefined: on the API port). */
  metricsPort: number | undefined;
  /** Address the separate metrics port listens on. */
  metricsHost: string;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Serve the web console under /console (false: those paths answer 404 like any unknown path). */
  consoleEnabled: boolean;
  /** A console session ends after this long without a request. */
  consoleIdleTimeoutMs: number;
  /** A console session ends this long after login, however active. */
  consoleSessionLifetimeMs: number;
  /** Failed console logins per client address and per account within the window before logins are refused. */
  consoleLoginLimit: number;
  consoleLoginWindowMs: number;
  /** Which processor connector moves the money (connectors/connector-for.ts): the sandbox, KBank or SCB. */
  processorConnector: ProcessorConnectorName;
  /** The KBank connector's settings; set only with PROCESSOR_CONNECTOR=kbank (config/kbank.ts). */
  kbank: KbankSettings | undefined;
  /** The SCB connector's settings; set only with PROCESSOR_CONNECTOR=scb (config/scb.ts). */
  scb: ScbSettings | undefined;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads `.env` (if present) under the process environment; the environment wins. */
export function readEnvironment(processEnv: Env, envFile = '.env'): Env {
  const fromFile = existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {};
  return { ...fromFile, ...processEnv };
}

/** A placeholder biller id for sandbox QR codes; live deployments set their bank-assigned one. */
export const SANDBOX_BILLER_ID = '099999999999900';

export function loadConfig(env: Env): Config {
  const r = new EnvReader(env);
  // Problems are listed in the order the keys are read, and that order is kept as it has always been: this is
  // why some settings sit between the groups rather than in one (DATABASE_POOL_SIZE after MIN_AMOUNT, say).
  const server = readServer(r);
  const config: Config = {
    ...server,
    databaseUrl: readDatabaseUrl(r),
    serviceName: readServiceName(r),
    logLevel: r.oneOf<LogLevel>('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    ...readSecretKey(r, server.mode),
    retryLadderMs: readRetryLadder(r),
    ...readAmounts(r),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 200),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 16_384, 1024, 1_048_576),
    transactionTtlMs: r.duration('TRANSACTION_TTL', '15m', 1000, 7 * 86_400_000),
    ...readDelivery(r),
    ...readOutboundPolicy(r, server.mode),
    ...readMerchantLimits(r),
    sweepIntervalMs: r.duration('EXPIRY_SWEEP_INTERVAL', '5s', 10, 3_600_000),
    shutdownTimeoutMs: r.duration('SHUTDOWN_TIMEOUT', '15s', 100, 300_000),
    webhookSecretOverlapMs: r.duration('WEBHOOK_SECRET_OVERLAP', '24h', 0, 30 * 86_400_000),
    createDemoMerchant: r.bool('CREATE_DEMO_MERCHANT', server.mode === 'sandbox'),
    migrateOnStart: r.bool('MIGRATE_ON_START', true),
    thaiQrBillerId: r.str('THAI_QR_BILLER_ID', SANDBOX_BILLER_ID),
    trustProxy: parseTrustProxy(r.str('TRUST_PROXY', 'false'), r.problems),
    ...readHttpLimits(r),
    returnWaitForNotificationMs: r.duration('RETURN_WAIT_FOR_NOTIFICATION', '5s', 0, 60_000),
    ...readMetrics(r),
    ...readConsole(r),
    ...readConnectors(r),
  };
  checkCombinations(config, r.problems);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** PROCESSOR_CONNECTOR, then each bank's settings (config/kbank.ts, config/scb.ts). */
function readConnectors(r: EnvReader): Pick<Config, 'processorConnector' | 'kbank' | 'scb'> {
  const processor = readProcessor(r);
  return { ...processor, scb: readScb(r, processor.processorConnector) };
}

/**
 * Settings that are valid together but worth a look, logged at start (server.ts): each a sentence
 * that says what happens and what to change.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  // A KBank QR dies before the gateway's deadline, so a customer who waits sees it expire while the
  // payment is still open (docs/connectors/kbank.md "Settings").
  if (config.kbank && config.transactionTtlMs > config.kbank.qrTtlMs)
    warnings.push(
      `TRANSACTION_TTL (${config.transactionTtlMs / 1000} s) is longer than KBANK_QR_TTL ` +
        `(${config.kbank.qrTtlMs / 1000} s): a payment's KBank QR expires before the payment does; ` +
        'set TRANSACTION_TTL to at most KBANK_QR_TTL',
    );
  // The same with SCB's own expiry (SCB_QR=api); a local QR has none at the bank (docs/connectors/scb.md "Settings").
  if (config.scb?.qrMode === 'api' && config.transactionTtlMs > config.scb.qrTtlMs)
    warnings.push(
      `TRANSACTION_TTL (${config.transactionTtlMs / 1000} s) is longer than SCB_QR_TTL ` +
        `(${config.scb.qrTtlMs / 1000} s): a payment's SCB QR expires before the payment does; ` +
        'set TRANSACTION_TTL to at most SCB_QR_TTL',
    );
  return warnings;
}

/**
 * Checks that need the whole configuration: settings that are each valid but not together, and two
 * single-key checks that have always been reported after every other key.
 */
function checkCombinations(config: Config, problems: string[]): void {
  // Node refuses a headers timeout longer than the whole-request timeout.
  if (config.headersTimeoutMs > config.requestTimeoutMs)
    problems.push('HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT');
  if (config.shutdownIdleGraceMs >= config.shutdownTimeoutMs)
    problems.push('SHUTDOWN_IDLE_GRACE must be shorter than SHUTDOWN_TIMEOUT');
  if (config.metricsToken !== undefined && config.metricsToken.length < 16)
    problems.push('METRICS_TOKEN must be at least 16 characters (value not shown)');
  if (!/^\d{15}$/.test(config.thaiQrBillerId))
    problems.push(`THAI_QR_BILLER_ID="${config.thaiQrBillerId}" must be 15 digits (13-digit tax id + 2-digit suffix)`);
  // A lease shorter than one send would let a second instance claim an event still in flight.
  if (config.deliveryLeaseMs < config.deliveryTimeoutMs + 1000)
    problems.push('DELIVERY_LEASE must be at least DELIVERY_TIMEOUT + 1s');
  // Nothing else could deliver: a SQLite file is served by exactly one process.
  if (!config.deliveryWorker && config.databaseUrl.startsWith('sqlite:'))
    problems.push(
      'DELIVERY_WORKER=false needs PostgreSQL: a SQLite database is served by one process, ' +
        'and its `serve` must deliver the notifications',
    );
  // Sandbox mode lets POST /transaction/sandbox/complete end a payment without the bank, which must
  // never happen to a QR real money can pay (docs/connectors/kbank.md "Settings").
  const kbankUrl = config.kbank && URL.canParse(config.kbank.baseUrl) ? new URL(config.kbank.baseUrl) : undefined;
  if (config.mode === 'sandbox' && kbankUrl?.hostname === KBANK_PRODUCTION_HOST)
    problems.push(
      'KBANK_BASE_URL is KBank production, where QR payments move real money: set GATEWAY_MODE=live ' +
        '(sandbox mode completes payments without asking the bank)',
    );
  const scbUrl = config.scb && URL.canParse(config.scb.baseUrl) ? new URL(config.scb.baseUrl) : undefined;
  if (config.mode === 'sandbox' && scbUrl?.hostname === SCB_PRODUCTION_HOST)
    problems.push(
      'SCB_BASE_URL is SCB production, where QR payments move real money: set GATEWAY_MODE=live ' +
        '(sandbox mode completes payments without asking the bank)',
    );
}
