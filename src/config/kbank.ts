// PROCESSOR_CONNECTOR and the KBank connector's settings (docs/connectors/kbank.md "Settings"); SCB's
// are read in config/scb.ts.
// Every KBANK_* key is read whichever connector runs, so a bad value is reported even before the
// connector is switched on; the mandatory ones are demanded only with PROCESSOR_CONNECTOR=kbank.
import { accessSync, constants } from 'node:fs';
import ipaddr from 'ipaddr.js';
import type { EnvReader } from './env-reader.ts';
import { splitList } from './list.ts';

export type ProcessorConnectorName = 'sandbox' | 'kbank' | 'scb';

/** KBank's production API: the only host where KBank demands a client certificate (two-way TLS). */
export const KBANK_PRODUCTION_HOST = 'openapi.kasikornbank.com';
export const KBANK_SANDBOX_URL = 'https://openapi-sandbox.kasikornbank.com';

/** What the KBank connector is configured with (connectors/kbank/connector.ts). */
export type KbankSettings = {
  /** Without a trailing slash. */
  baseUrl: string;
  consumerId: string;
  consumerSecret: string;
  partnerId: string;
  partnerSecret: string;
  merchantId: string;
  terminalId: string | null;
  /** Paths of the client certificate and its key (PEM) for two-way TLS. */
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /** Sends KBank's sandbox headers (`x-test-mode`, `env-id`) on every call. */
  testMode: boolean;
  /** The secret last segment of the callback path (/processor/kbank/notify/<token>). */
  callbackPathToken: string;
  /** Addresses or CIDRs callbacks may come from; empty: any. */
  callbackAllowCidrs: string[];
  /** Voids are refused from this minute of the Asia/Bangkok day on (21:30 → 1290). */
  voidCutoffMinute: number;
  /** How long a QR is shown as payable (KBank's QR lives 10 minutes). */
  qrTtlMs: number;
  /** Per call: connecting and the whole answer. */
  timeoutMs: number;
};

export type ProcessorSettings = { processorConnector: ProcessorConnectorName; kbank: KbankSettings | undefined };

const MANDATORY = [
  'KBANK_BASE_URL',
  'KBANK_CONSUMER_ID',
  'KBANK_CONSUMER_SECRET',
  'KBANK_PARTNER_ID',
  'KBANK_PARTNER_SECRET',
  'KBANK_MERCHANT_ID',
  'KBANK_CALLBACK_PATH_TOKEN',
] as const;

/** KBank's documented field lengths (partnerId string(10), merchantId string(14), terminalId string(8)). */
const MAX_LENGTH: Record<string, number> = { KBANK_PARTNER_ID: 10, KBANK_MERCHANT_ID: 14, KBANK_TERMINAL_ID: 8 };

export function readProcessor(r: EnvReader): ProcessorSettings {
  const processorConnector = r.oneOf<ProcessorConnectorName>('PROCESSOR_CONNECTOR', 'sandbox', [
    'sandbox',
    'kbank',
    'scb',
  ]);
  const selected = processorConnector === 'kbank';
  const text = (key: string): string => {
    const value = r.str(key, '').trim();
    const max = MAX_LENGTH[key];
    if (max !== undefined && value.length > max) r.problems.push(`${key}="${value}" must be at most ${max} characters`);
    return value;
  };
  const baseUrl = text('KBANK_BASE_URL').replace(/\/+$/, '');
  const consumerId = text('KBANK_CONSUMER_ID');
  const consumerSecret = text('KBANK_CONSUMER_SECRET');
  const partnerId = text('KBANK_PARTNER_ID');
  const partnerSecret = text('KBANK_PARTNER_SECRET');
  const merchantId = text('KBANK_MERCHANT_ID');
  const terminalId = text('KBANK_TERMINAL_ID') || null;
  const tlsCertFile = text('KBANK_TLS_CERT') || null;
  const tlsKeyFile = text('KBANK_TLS_KEY') || null;
  const testMode = r.bool('KBANK_TEST_MODE', false);
  const callbackPathToken = text('KBANK_CALLBACK_PATH_TOKEN');
  // The token is the callback's only credential: KBank signs nothing (docs/connectors/kbank.md "Callback").
  if (callbackPathToken !== '' && !/^[A-Za-z0-9_-]{32,128}$/.test(callbackPathToken))
    r.problems.push(
      'KBANK_CALLBACK_PATH_TOKEN must be 32-128 letters, digits, _ or - (e.g. openssl rand -hex 32; value not shown)',
    );
  const callbackAllowCidrs = readCidrs(r);
  const voidCutoffMinute = readTimeOfDay(r, 'KBANK_VOID_CUTOFF', '21:30');
  const qrTtlMs = r.duration('KBANK_QR_TTL', '10m', 30_000, 600_000);
  const timeoutMs = r.duration('KBANK_TIMEOUT', '10s', 100, 120_000);

  if (selected) {
    const values: Record<(typeof MANDATORY)[number], string> = {
      KBANK_BASE_URL: baseUrl,
      KBANK_CONSUMER_ID: consumerId,
      KBANK_CONSUMER_SECRET: consumerSecret,
      KBANK_PARTNER_ID: partnerId,
      KBANK_PARTNER_SECRET: partnerSecret,
      KBANK_MERCHANT_ID: merchantId,
      KBANK_CALLBACK_PATH_TOKEN: callbackPathToken,
    };
    for (const key of MANDATORY) {
      if (values[key] === '') r.problems.push(`${key} is required with PROCESSOR_CONNECTOR=kbank`);
    }
  }
  if (baseUrl !== '') {
    const problem = kbankBaseUrlProblem(baseUrl, { cert: tlsCertFile, key: tlsKeyFile });
    if (problem) r.problems.push(`KBANK_BASE_URL="${baseUrl}" ${problem}`);
    else if (testMode && new URL(baseUrl).hostname === KBANK_PRODUCTION_HOST)
      r.problems.push(`KBANK_TEST_MODE=true sends KBank's sandbox scenario headers; it is not for production`);
  }
  if ((tlsCertFile === null) !== (tlsKeyFile === null))
    r.problems.push('KBANK_TLS_CERT and KBANK_TLS_KEY are set together (the client certificate and its key)');
  for (const [key, file] of [
    ['KBANK_TLS_CERT', tlsCertFile],
    ['KBANK_TLS_KEY', tlsKeyFile],
  ] as const) {
    if (file !== null && !readable(file)) r.problems.push(`${key}="${file}" is not a readable file`);
  }
  if (!selected) return { processorConnector, kbank: undefined };
  return {
    processorConnector,
    kbank: {
      baseUrl,
      consumerId,
      consumerSecret,
      partnerId,
      partnerSecret,
      merchantId,
      terminalId,
      tlsCertFile,
      tlsKeyFile,
      testMode,
      callbackPathToken,
      callbackAllowCidrs,
      voidCutoffMinute,
      qrTtlMs,
      timeoutMs,
    },
  };
}

/**
 * What is wrong with a KBank base URL, if anything: an absolute https URL (http only to a
 * loopback host, for the local simulator), without credentials, query or fragment; KBank's
 * production host only with a client certificate and key.
 */
export function kbankBaseUrlProblem(
  baseUrl: string,
  tls: { cert: string | null | undefined; key: string | null | undefined },
): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute https URL';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return 'must have no credentials, query or fragment';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'must be https: plain http is only for a loopback host (the local simulator)';
  if (url.hostname === KBANK_PRODUCTION_HOST && (!tls.cert || !tls.key))
    return 'is KBank production, which demands two-way TLS: set KBANK_TLS_CERT and KBANK_TLS_KEY';
  return undefined;
}

/** localhost, 127.0.0.0/8 or ::1 (a URL's hostname, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(bare)) return false;
  const address = ipaddr.process(bare);
  return address.range() === 'loopback';
}

function readCidrs(r: EnvReader): string[] {
  const raw = r.str('KBANK_CALLBACK_ALLOW_CIDRS', '');
  const entries = splitList(raw);
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0) {
    r.problems.push(
      `KBANK_CALLBACK_ALLOW_CIDRS="${raw}" must be a comma-separated list of IP addresses or CIDRs ` +
        `(not: ${bad.join(', ')})`,
    );
    return [];
  }
  return entries;
}

/** A dotted-quad IPv4 or an IPv6 address, optionally /prefix; no exotic IPv4 spellings (`10`, `0x7f.1`). */
export function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && !(address.includes(':') && ipaddr.IPv6.isValid(address))) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

/** HH:MM on a 24-hour clock → minutes past midnight. */
function readTimeOfDay(r: EnvReader, key: string, fallback: string): number {
  const raw = r.str(key, fallback);
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw.trim());
  if (match) return Number(match[1]) * 60 + Number(match[2]);
  r.problems.push(`${key}="${raw}" must be a time of day HH:MM (Asia/Bangkok), e.g. 21:30`);
  const [hours, minutes] = fallback.split(':');
  return Number(hours) * 60 + Number(minutes);
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
