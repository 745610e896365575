// The only reader of the environment. Every key is validated at start; all problems are
// reported together in one message (ConfigError) so an operator fixes them in one pass.
import { readFileSync, existsSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { isIP } from 'node:net';
import { parseDecimal } from './domain/money.ts';

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
  /** At most this many notifications in flight to one origin (scheme://host:port) per instance. */
  deliveryPerHostConcurrency: number;
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
   * many new connections per turn instead of one (http/acceptor-pool.ts). 1 = a single listener.
   */
  listenSockets: number;
  /** Requests being worked on at once; more are answered 503 + Retry-After without being worked on (load shedding). */
  maxInFlight: number;
  /** How long a shed request's 503 is held before it is sent (0: at once); see http/load-shedding.ts. */
  shedDelayMs: number;
  /** On SIGTERM, idle keep-alive connections stay open this long so requests already on the wire are answered. */
  shutdownIdleGraceMs: number;
  /** How long the hosted page waits for the first notification attempt before sending the customer back (0: no wait). */
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
};

export type TrustProxy = boolean | string[];

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** Reads `.env` (if present) under the process environment; the environment wins. */
export function readEnvironment(processEnv: Env, envFile = '.env'): Env {
  const fromFile = existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {};
  return { ...fromFile, ...processEnv };
}

const DURATION = /^(\d+)(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A placeholder biller id for sandbox QR codes; live deployments set their bank-assigned one. */
export const SANDBOX_BILLER_ID = '099999999999900';

export const DEFAULT_RETRY_LADDER = '0,5s,5m,30m,2h,5h,10h,10h';

export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const str = (key: string, fallback: string): string => {
    const value = env[key];
    return value === undefined || value === '' ? fallback : value;
  };
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = str(key, String(fallback));
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${key}="${raw}" must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const duration = (key: string, fallback: string, minMs: number, maxMs: number): number => {
    const raw = str(key, fallback);
    const value = parseDuration(raw);
    if (value === undefined || value < minMs || value > maxMs) {
      problems.push(
        `${key}="${raw}" must be a duration like 500ms, 30s, 15m or 2h between ${minMs} ms and ${maxMs} ms`,
      );
      return parseDuration(fallback) ?? minMs;
    }
    return value;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const raw = str(key, String(fallback)).toLowerCase();
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${key}="${raw}" must be true or false`);
    return fallback;
  };
  const oneOf = <T extends string>(key: string, fallback: T, allowed: readonly T[]): T => {
    const raw = str(key, fallback) as T;
    if (!allowed.includes(raw)) {
      problems.push(`${key}="${raw}" must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return raw;
  };
  const amount = (key: string, fallback: string): bigint => {
    const raw = str(key, fallback);
    const parsed = parseDecimal(raw);
    if (!parsed || parsed.significantFractionDigits > 2 || parsed.minor <= 0n) {
      problems.push(`${key}="${raw}" must be a positive amount with at most 2 decimals`);
      return parseDecimal(fallback)?.minor ?? 0n;
    }
    return parsed.minor;
  };

  const mode = oneOf<GatewayMode>('GATEWAY_MODE', 'sandbox', ['sandbox', 'live']);
  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST', '127.0.0.1');
  // Listening on every interface says nothing about the address browsers use; localhost at least works on this machine.
  const baseHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const defaultBase = `http://${baseHost.includes(':') ? `[${baseHost}]` : baseHost}:${port}`;
  const publicBaseUrl = str('PUBLIC_BASE_URL', defaultBase).replace(/\/+$/, '');
  try {
    const url = new URL(publicBaseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    if (mode === 'live' && url.protocol !== 'https:')
      problems.push(`PUBLIC_BASE_URL="${publicBaseUrl}" must be https in live mode`);
  } catch {
    problems.push(`PUBLIC_BASE_URL="${publicBaseUrl}" must be an absolute http(s) URL`);
  }

  const databaseUrl = str('DATABASE_URL', 'sqlite:./data/gateway.db');
  if (!/^sqlite:.+/.test(databaseUrl) && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:<path> or postgres://… (got "${redactUrl(databaseUrl)}")`);
  }

  const serviceName = str('SERVICE_NAME', 'Gateway');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(serviceName))
    problems.push(`SERVICE_NAME="${serviceName}" must be 1-64 letters, digits, _ or -`);

  const logLevel = oneOf<LogLevel>('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

  let secretKey: Buffer | undefined;
  const rawKey = env.GATEWAY_SECRET_KEY;
  if (rawKey) {
    secretKey = decodeKey(rawKey);
    if (!secretKey)
      problems.push('GATEWAY_SECRET_KEY must be at least 32 bytes, hex or base64 encoded (value not shown)');
  } else if (mode === 'live') {
    problems.push('GATEWAY_SECRET_KEY is required in live mode (32+ random bytes, hex or base64)');
  }

  const ladderRaw = str('RETRY_LADDER', DEFAULT_RETRY_LADDER);
  const retryLadderMs = ladderRaw.split(',').map((step) => parseDuration(step));
  if (
    retryLadderMs.length === 0 ||
    retryLadderMs.length > 50 ||
    retryLadderMs.some((v) => v === undefined || v > 7 * 86_400_000)
  ) {
    problems.push(
      `RETRY_LADDER="${ladderRaw}" must be a comma-separated list of 1-50 durations (e.g. ${DEFAULT_RETRY_LADDER})`,
    );
  }

  const minAmountMinor = amount('MIN_AMOUNT', '100');
  const maxAmountMinor = amount('MAX_AMOUNT', '2000000');
  if (maxAmountMinor < minAmountMinor) problems.push('MAX_AMOUNT must not be below MIN_AMOUNT');

  const config: Config = {
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 200),
    mode,
    serviceName,
    logLevel,
    secretKey,
    secretKeyFile: str('GATEWAY_SECRET_KEY_FILE', './data/secret.key'),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 16_384, 1024, 1_048_576),
    minAmountMinor,
    maxAmountMinor,
    transactionTtlMs: duration('TRANSACTION_TTL', '15m', 1000, 7 * 86_400_000),
    retryLadderMs: retryLadderMs.map((v) => v ?? 0),
    deliveryTimeoutMs: duration('DELIVERY_TIMEOUT', '10s', 10, 120_000),
    deliveryConcurrency: int('DELIVERY_CONCURRENCY', 16, 1, 1024),
    deliveryPerHostConcurrency: int('DELIVERY_PER_HOST_CONCURRENCY', 4, 1, 1024),
    deliveryPollIntervalMs: duration('DELIVERY_POLL_INTERVAL', '1s', 10, 600_000),
    deliveryLeaseMs: duration('DELIVERY_LEASE', '60s', 1000, 3_600_000),
    deliveryWorker: bool('DELIVERY_WORKER', true),
    deliveryJitterPercent: int('DELIVERY_JITTER_PERCENT', 10, 0, 50),
    outboundAllowHttp: bool('OUTBOUND_ALLOW_HTTP', mode === 'sandbox'),
    outboundAllowList: str('OUTBOUND_ALLOWLIST', '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    merchantRefreshMs: duration('MERCHANT_REFRESH', '2s', 50, 60_000),
    failedLoginLimit: int('FAILED_LOGIN_LIMIT', 20, 1, 1_000_000),
    failedLoginWindowMs: duration('FAILED_LOGIN_WINDOW', '1m', 1000, 86_400_000),
    requestRateLimit: int('RATE_LIMIT_PER_MERCHANT_PER_SECOND', 2000, 1, 1_000_000),
    sweepIntervalMs: duration('EXPIRY_SWEEP_INTERVAL', '5s', 10, 3_600_000),
    shutdownTimeoutMs: duration('SHUTDOWN_TIMEOUT', '15s', 100, 300_000),
    webhookSecretOverlapMs: duration('WEBHOOK_SECRET_OVERLAP', '24h', 0, 30 * 86_400_000),
    createDemoMerchant: bool('CREATE_DEMO_MERCHANT', mode === 'sandbox'),
    migrateOnStart: bool('MIGRATE_ON_START', true),
    thaiQrBillerId: str('THAI_QR_BILLER_ID', SANDBOX_BILLER_ID),
    trustProxy: parseTrustProxy(str('TRUST_PROXY', 'false'), problems),
    headersTimeoutMs: duration('HEADERS_TIMEOUT', '10s', 100, 600_000),
    requestTimeoutMs: duration('REQUEST_TIMEOUT', '30s', 100, 600_000),
    keepAliveTimeoutMs: duration('KEEP_ALIVE_TIMEOUT', '72s', 100, 600_000),
    maxConnections: int('MAX_CONNECTIONS', 4096, 1, 1_000_000),
    listenSockets: int('LISTEN_SOCKETS', 512, 1, 1024),
    maxInFlight: int('MAX_IN_FLIGHT', 512, 1, 1_000_000),
    shedDelayMs: duration('SHED_DELAY', '100ms', 0, 5_000),
    shutdownIdleGraceMs: duration('SHUTDOWN_IDLE_GRACE', '1s', 0, 60_000),
    returnWaitForNotificationMs: duration('RETURN_WAIT_FOR_NOTIFICATION', '5s', 0, 60_000),
    metricsPort: env.METRICS_PORT ? int('METRICS_PORT', 9464, 0, 65535) : undefined,
    metricsHost: str('METRICS_HOST', '127.0.0.1'),
    metricsToken: env.METRICS_TOKEN || undefined,
    consoleEnabled: bool('CONSOLE_ENABLED', true),
    consoleIdleTimeoutMs: duration('CONSOLE_IDLE_TIMEOUT', '30m', 10_000, 86_400_000),
    consoleSessionLifetimeMs: duration('CONSOLE_SESSION_LIFETIME', '12h', 60_000, 30 * 86_400_000),
    consoleLoginLimit: int('CONSOLE_LOGIN_LIMIT', 10, 1, 1_000_000),
    consoleLoginWindowMs: duration('CONSOLE_LOGIN_WINDOW', '15m', 1000, 86_400_000),
  };
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
  if (!config.deliveryWorker && databaseUrl.startsWith('sqlite:'))
    problems.push(
      'DELIVERY_WORKER=false needs PostgreSQL: a SQLite database is served by one process, and its `serve` must deliver the notifications',
    );
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const TRUST_PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: `false` (default: the socket's address is the client), `true` (believe any
 * X-Forwarded-For: only behind a proxy that overwrites it), or a comma-separated list of proxy
 * addresses / CIDRs (and `loopback`, `linklocal`, `uniquelocal`).
 *
 * A hop count is refused: Fastify 5 ignores one (a count cannot tell the proxy from a client that
 * connects directly and sends its own header), so `TRUST_PROXY=1` used to start and then silently
 * treat every client behind the proxy as the proxy's one address (one lockout for all).
 */
function parseTrustProxy(raw: string, problems: string[]): TrustProxy {
  const value = raw.trim().toLowerCase();
  if (value === 'false' || value === '0' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    problems.push(
      `TRUST_PROXY="${raw}": a hop count cannot tell your proxy from a client that connects directly, so it is not supported; list the proxies' addresses or CIDRs instead (e.g. 10.0.0.0/8,loopback)`,
    );
    return false;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.length <= 64 && entries.every(isProxyEntry)) return entries;
  problems.push(
    `TRUST_PROXY="${raw}" must be false, true, or a comma-separated list of IP addresses / CIDRs (e.g. 10.0.0.0/8,loopback)`,
  );
  return false;
}

function isProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_KEYWORDS.has(entry.toLowerCase())) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function decodeKey(raw: string): Buffer | undefined {
  const trimmed = raw.trim();
  const buffer =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
  return buffer.length >= 32 ? buffer : undefined;
}

/** Never print a database password, even in a configuration error. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
