// The simulator's options and their defaults. Everything KBank's public material leaves open is
// an option here (the void cut-off, settlement, callback retries, the partnerTxnUid charset, the
// answer to an unknown inquiry, the placeholder errors), so a test can pin either behaviour.
// Credentials not given are generated from the seed: the same seed, the same credentials.
import { bangkokIso, formatTimeOfDay, parseTimeOfDay, toInstant } from '../sim-kit/clock.ts';
import { DEFAULT_PLACEHOLDER_ERRORS, type PlaceholderErrors } from './errors.ts';
import { SeededIds } from '../sim-kit/ids.ts';
import { DEFAULT_START, type SimServerConfig, type SimServerOptions } from '../sim-kit/server-options.ts';

export type PartnerOptions = {
  secret: string;
  merchantIds: string[];
  /** The payee name a create answers with (the sandbox answers "Kasikorn API"). */
  accountName?: string;
  /** Tag 30's biller id in the QR: 13 digits (a tax id, as in KBank's example) or 15 (with suffix). */
  billerId?: string;
  /** The account settlement pays into; answered masked. */
  accountNo?: string;
};

export type CallbackOptions = {
  /** Deliveries tried per callback (default 1: KBank's retry policy is not published). */
  attempts?: number;
  /** Real milliseconds between attempts (default 12000). */
  intervalMs?: number;
  /** Real milliseconds an attempt may take (default 10000). */
  timeoutMs?: number;
};

export type KbankSimOptions = SimServerOptions & {
  /** consumerId → consumerSecret (OAuth client credentials). */
  consumers?: Record<string, string>;
  partners?: Record<string, PartnerOptions>;
  /** merchantId → the URL its payment callbacks are POSTed to (registered out of band at KBank). */
  callbackUrls?: Record<string, string>;
  tokenTtlSeconds?: number;
  qrTtlSeconds?: number;
  /** "HH:MM" Asia/Bangkok: voids on the day of payment are accepted before it (default "23:00"). */
  voidCutoff?: string;
  /** "HH:MM" Asia/Bangkok: the day's payments settle then (default "23:00"); null: only when asked. */
  autoSettleAt?: string | null;
  callback?: CallbackOptions;
  /** Added to every answer of the faithful surface: ms ± jitterMs (seeded), real time. */
  latency?: { ms: number; jitterMs?: number };
  /** Serve HTTPS; with requireMtls the client must present a certificate signed by `ca`. */
  tls?: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer };
  requireMtls?: boolean;
  /** true (default): `x-test-mode: true` + `env-id` selects a canned sandbox answer. */
  sandboxScenarios?: boolean;
  /** An inquiry for an unknown origPartnerTxnUid: `txnStatus` NOT_FOUND (default) or error EMITDNE. */
  unknownInquiry?: 'NOT_FOUND' | 'EMITDNE';
  /** What a partnerTxnUid must look like (default /^[A-Z0-9]{1,15}$/: string(15), the charset advised). */
  partnerTxnUidPattern?: RegExp;
  placeholderErrors?: Partial<PlaceholderErrors>;
};

export type Partner = {
  partnerId: string;
  secret: string;
  merchantIds: readonly string[];
  accountName: string;
  billerId: string;
  accountNo: string;
};

export type SimConfig = SimServerConfig & {
  consumers: ReadonlyMap<string, string>;
  partners: ReadonlyMap<string, Partner>;
  /** merchantId → its partner's id. */
  merchantPartner: ReadonlyMap<string, string>;
  /** Mutable: the control API may register a URL while running. */
  callbackUrls: Map<string, string>;
  tokenTtlSeconds: number;
  qrTtlSeconds: number;
  /** Minutes past Asia/Bangkok midnight. */
  voidCutoffMinute: number;
  autoSettleMinute: number | null;
  callback: Required<CallbackOptions>;
  latency: { ms: number; jitterMs: number };
  tls: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer } | null;
  requireMtls: boolean;
  sandboxScenarios: boolean;
  unknownInquiry: 'NOT_FOUND' | 'EMITDNE';
  partnerTxnUidPattern: RegExp;
  placeholderErrors: PlaceholderErrors;
};

/** The first consumer, partner and merchant: what a client of the simulator is told to use. */
export type SimCredentials = {
  consumerId: string;
  consumerSecret: string;
  partnerId: string;
  partnerSecret: string;
  merchantId: string;
};

export { DEFAULT_START };

const DEFAULTS = {
  host: '127.0.0.1',
  seed: 'kbank-sim',
  tokenTtlSeconds: 1799,
  qrTtlSeconds: 600,
  voidCutoff: '23:00',
  autoSettleAt: '23:00',
  callback: { attempts: 1, intervalMs: 12_000, timeoutMs: 10_000 },
};

export class SimConfigError extends Error {}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new SimConfigError(`${name} must be a positive integer`);
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new SimConfigError(`${name} must be 0 or more`);
  return value;
}

function timeOfDay(name: string, text: string): number {
  const minute = parseTimeOfDay(text);
  if (minute === null) throw new SimConfigError(`${name} must be HH:MM (24-hour, Asia/Bangkok), got ${text}`);
  return minute;
}

function httpUrl(name: string, url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new SimConfigError(`${name} must be an http(s) URL, got ${url}`);
  return url;
}

/** Generated credentials: shaped like KBank's (32-character consumer key, PTR + 7 digits, KB + 12 digits). */
function generatedCredentials(ids: SeededIds): {
  consumers: Record<string, string>;
  partners: Record<string, PartnerOptions>;
} {
  const merchantId = `KB${ids.digits('merchant-id', 12)}`;
  return {
    consumers: { [ids.alnum('consumer-id', 32)]: ids.alnum('consumer-secret', 16) },
    partners: {
      [`PTR${ids.digits('partner-id', 7)}`]: { secret: ids.hex('partner-secret', 32), merchantIds: [merchantId] },
    },
  };
}

export function resolveConfig(options: KbankSimOptions = {}): SimConfig {
  const seed = options.seed ?? DEFAULTS.seed;
  const ids = new SeededIds(seed);
  const generated = generatedCredentials(ids);
  const consumers = new Map(Object.entries(options.consumers ?? generated.consumers));
  if (consumers.size === 0) throw new SimConfigError('consumers must name at least one consumer');

  const partners = new Map<string, Partner>();
  const merchantPartner = new Map<string, string>();
  for (const [partnerId, p] of Object.entries(options.partners ?? generated.partners)) {
    const billerId = p.billerId ?? `0105${ids.digits('biller-id', 9)}`;
    if (!/^\d{13}(?:\d{2})?$/.test(billerId))
      throw new SimConfigError(`partner ${partnerId}: billerId is 13 or 15 digits`);
    const accountNo = p.accountNo ?? ids.digits('account-no', 10);
    if (!/^\d{4,}$/.test(accountNo)) throw new SimConfigError(`partner ${partnerId}: accountNo is 4 digits or more`);
    if (p.merchantIds.length === 0) throw new SimConfigError(`partner ${partnerId}: merchantIds is empty`);
    for (const merchantId of p.merchantIds) {
      if (merchantPartner.has(merchantId)) throw new SimConfigError(`merchant ${merchantId} belongs to two partners`);
      merchantPartner.set(merchantId, partnerId);
    }
    partners.set(partnerId, {
      partnerId,
      secret: p.secret,
      merchantIds: [...p.merchantIds],
      accountName: p.accountName ?? 'KBANK SIM MERCHANT',
      billerId,
      accountNo,
    });
  }
  if (partners.size === 0) throw new SimConfigError('partners must name at least one partner');

  const callbackUrls = new Map<string, string>();
  for (const [merchantId, url] of Object.entries(options.callbackUrls ?? {})) {
    if (!merchantPartner.has(merchantId)) throw new SimConfigError(`callbackUrls: unknown merchant ${merchantId}`);
    callbackUrls.set(merchantId, httpUrl(`callbackUrls.${merchantId}`, url));
  }

  const start = toInstant(options.now ?? DEFAULT_START);
  if (start === null) throw new SimConfigError('now must be ISO 8601 with a zone, Unix ms or a Date');
  if (options.requireMtls && !options.tls?.ca) throw new SimConfigError('requireMtls needs tls with a ca');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new SimConfigError('port must be 0–65535');
  const callback = { ...DEFAULTS.callback, ...options.callback };
  const latency = options.latency ?? { ms: 0 };

  return {
    host: options.host ?? DEFAULTS.host,
    port,
    seed,
    start,
    tickingClock: options.tickingClock ?? false,
    consumers,
    partners,
    merchantPartner,
    callbackUrls,
    tokenTtlSeconds: positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds),
    qrTtlSeconds: positiveInteger('qrTtlSeconds', options.qrTtlSeconds ?? DEFAULTS.qrTtlSeconds),
    voidCutoffMinute: timeOfDay('voidCutoff', options.voidCutoff ?? DEFAULTS.voidCutoff),
    autoSettleMinute:
      options.autoSettleAt === null ? null : timeOfDay('autoSettleAt', options.autoSettleAt ?? DEFAULTS.autoSettleAt),
    callback: {
      attempts: positiveInteger('callback.attempts', callback.attempts),
      intervalMs: nonNegativeInteger('callback.intervalMs', callback.intervalMs),
      timeoutMs: positiveInteger('callback.timeoutMs', callback.timeoutMs),
    },
    latency: {
      ms: nonNegativeInteger('latency.ms', latency.ms),
      jitterMs: nonNegativeInteger('latency.jitterMs', latency.jitterMs ?? 0),
    },
    tls: options.tls ?? null,
    requireMtls: options.requireMtls ?? false,
    sandboxScenarios: options.sandboxScenarios ?? true,
    unknownInquiry: options.unknownInquiry ?? 'NOT_FOUND',
    partnerTxnUidPattern: options.partnerTxnUidPattern ?? /^[A-Z0-9]{1,15}$/,
    placeholderErrors: { ...DEFAULT_PLACEHOLDER_ERRORS, ...options.placeholderErrors },
  };
}

export function credentialsOf(config: SimConfig): SimCredentials {
  const [consumerId, consumerSecret] = [...config.consumers][0]!;
  const partner = [...config.partners.values()][0]!;
  return {
    consumerId,
    consumerSecret,
    partnerId: partner.partnerId,
    partnerSecret: partner.secret,
    merchantId: partner.merchantIds[0]!,
  };
}

/** The options as the state and log report them (no secrets). */
export function describeConfig(config: SimConfig): Record<string, unknown> {
  return {
    start: bangkokIso(config.start),
    tickingClock: config.tickingClock,
    tokenTtlSeconds: config.tokenTtlSeconds,
    qrTtlSeconds: config.qrTtlSeconds,
    voidCutoff: formatTimeOfDay(config.voidCutoffMinute),
    autoSettleAt: config.autoSettleMinute === null ? null : formatTimeOfDay(config.autoSettleMinute),
    callback: config.callback,
    latency: config.latency,
    tls: config.tls !== null,
    requireMtls: config.requireMtls,
    sandboxScenarios: config.sandboxScenarios,
    unknownInquiry: config.unknownInquiry,
    partnerTxnUidPattern: String(config.partnerTxnUidPattern),
    merchants: [...config.merchantPartner].map(([merchantId, partnerId]) => ({
      merchantId,
      partnerId,
      callbackUrl: config.callbackUrls.get(merchantId) ?? null,
    })),
  };
}
