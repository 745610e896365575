// The SCB simulator's options and their defaults (docs/connectors/scb-sim.md "Options"). What
// SCB's public material leaves open is an option here (the token's life is SCB's 1800 s, the
// confirmation's resends and interval SCB's 3 × 12 s, both overridable so a test need not wait).
// Credentials not given are generated from the seed: the same seed, the same credentials.
import { bangkokIso, toInstant } from '../sim-kit/clock.ts';
import { SeededIds } from '../sim-kit/ids.ts';
import { DEFAULT_START, type SimServerConfig, type SimServerOptions } from '../sim-kit/server-options.ts';

export type ConfirmationOptions = {
  /** Resends after the first try when the partner does not answer 200 with resCode "00" (default 3). */
  resends?: number;
  /** Real milliseconds between tries (default 12000). */
  intervalMs?: number;
  /** Real milliseconds a try may take (default 10000). */
  timeoutMs?: number;
};

export type ScbSimOptions = SimServerOptions & {
  /** The app's API key (resourceOwnerId, applicationKey) and secret (applicationSecret). */
  apiKey?: string;
  apiSecret?: string;
  /** The partner's biller id (ppId, payeeProxyId): 15 digits. */
  billerId?: string;
  /** What every ref3 must start with: 3 upper-case letters SCB assigns the partner. */
  ref3Prefix?: string;
  /** The payee's account and name a confirmation reports. */
  payeeAccountNumber?: string;
  payeeName?: string;
  /** The URL registered on the app that payment confirmations are POSTed to. */
  confirmUrl?: string;
  tokenTtlSeconds?: number;
  confirmation?: ConfirmationOptions;
};

export type SimConfig = SimServerConfig & {
  apiKey: string;
  apiSecret: string;
  billerId: string;
  ref3Prefix: string;
  payeeAccountNumber: string;
  payeeName: string;
  /** Mutable: the control API may register a URL while running. */
  confirmUrl: string | null;
  tokenTtlSeconds: number;
  confirmation: { attempts: number; intervalMs: number; timeoutMs: number };
};

/** What a client of the simulator is told to use (the gateway's SCB_* settings). */
export type SimCredentials = { apiKey: string; apiSecret: string; billerId: string; ref3Prefix: string };

/** The path prefix SCB's sandbox serves under; SCB_BASE_URL is the simulator's URL with it. */
export const BASE_PATH = '/partners/sandbox';
export { DEFAULT_START };

const DEFAULTS = {
  host: '127.0.0.1',
  seed: 'scb-sim',
  tokenTtlSeconds: 1800,
  confirmation: { resends: 3, intervalMs: 12_000, timeoutMs: 10_000 },
};

export class SimConfigError extends Error {}

function integerIn(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new SimConfigError(`${name} must be an integer ≥ ${min}`);
  return value;
}

export function httpUrl(name: string, url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new SimConfigError(`${name} must be an http(s) URL, got ${url}`);
  return url;
}

export function resolveConfig(options: ScbSimOptions = {}): SimConfig {
  const seed = options.seed ?? DEFAULTS.seed;
  const ids = new SeededIds(seed);
  // Shaped like an SCB developer app's: a 36-character key ("l7…"), a 32-character secret.
  const apiKey = options.apiKey ?? `l7${ids.hex('api-key', 34)}`;
  const apiSecret = options.apiSecret ?? ids.hex('api-secret', 32);
  const billerId = options.billerId ?? `0105${ids.digits('biller-id', 11)}`;
  if (!/^\d{15}$/.test(billerId)) throw new SimConfigError('billerId must be 15 digits');
  const ref3Prefix = options.ref3Prefix ?? 'SCB';
  if (!/^[A-Z]{3}$/.test(ref3Prefix)) throw new SimConfigError('ref3Prefix must be 3 upper-case letters');
  const payeeAccountNumber = options.payeeAccountNumber ?? ids.digits('payee-account', 10);
  if (!/^\d{10,15}$/.test(payeeAccountNumber)) throw new SimConfigError('payeeAccountNumber must be 10–15 digits');
  const start = toInstant(options.now ?? DEFAULT_START);
  if (start === null) throw new SimConfigError('now must be ISO 8601 with a zone, Unix ms or a Date');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new SimConfigError('port must be 0–65535');
  const confirmation = { ...DEFAULTS.confirmation, ...options.confirmation };
  return {
    host: options.host ?? DEFAULTS.host,
    port,
    seed,
    start,
    tickingClock: options.tickingClock ?? false,
    apiKey,
    apiSecret,
    billerId,
    ref3Prefix,
    payeeAccountNumber,
    payeeName: options.payeeName ?? 'SCB SIM MERCHANT',
    confirmUrl: options.confirmUrl === undefined ? null : httpUrl('confirmUrl', options.confirmUrl),
    tokenTtlSeconds: integerIn('tokenTtlSeconds', options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds, 1),
    confirmation: {
      attempts: integerIn('confirmation.resends', confirmation.resends, 0) + 1,
      intervalMs: integerIn('confirmation.intervalMs', confirmation.intervalMs, 0),
      timeoutMs: integerIn('confirmation.timeoutMs', confirmation.timeoutMs, 1),
    },
  };
}

export function credentialsOf(config: SimConfig): SimCredentials {
  const { apiKey, apiSecret, billerId, ref3Prefix } = config;
  return { apiKey, apiSecret, billerId, ref3Prefix };
}

/** The options as the state reports them (no secrets). */
export function describeConfig(config: SimConfig): Record<string, unknown> {
  return {
    start: bangkokIso(config.start),
    tickingClock: config.tickingClock,
    billerId: config.billerId,
    ref3Prefix: config.ref3Prefix,
    payeeAccountNumber: config.payeeAccountNumber,
    payeeName: config.payeeName,
    confirmUrl: config.confirmUrl,
    tokenTtlSeconds: config.tokenTtlSeconds,
    confirmation: {
      resends: config.confirmation.attempts - 1,
      intervalMs: config.confirmation.intervalMs,
      timeoutMs: config.confirmation.timeoutMs,
    },
  };
}
