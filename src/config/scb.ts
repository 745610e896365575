// The SCB QR30 connector's settings (docs/connectors/scb.md "Settings"). As with KBank
// (config/kbank.ts), every SCB_* key is read whichever connector runs, so a bad value is reported
// before the connector is switched on; the mandatory ones are demanded only with
// PROCESSOR_CONNECTOR=scb, and a secret's value is never shown.
import type { EnvReader } from './env-reader.ts';
import { isAddressOrCidr, isLoopbackHost, type ProcessorConnectorName } from './kbank.ts';
import { splitList } from './list.ts';

/** SCB's production API host: the only one where QR payments move real money. */
export const SCB_PRODUCTION_HOST = 'api.partners.scb';
export const SCB_SANDBOX_URL = 'https://api-sandbox.partners.scb/partners/sandbox';

/**
 * Who builds the QR: `api` asks SCB (v2 create: one use, a bank-side expiry); `local` builds the
 * same tag-30 payload in the gateway, with no call and no bank-side expiry or one-use rule.
 */
export type ScbQrMode = 'api' | 'local';

/** What the SCB connector is configured with (connectors/scb/connector.ts). */
export type ScbSettings = {
  /** Without a trailing slash, e.g. https://api.partners.scb/partners. */
  baseUrl: string;
  /** The app's API key: `resourceOwnerId` on every call and `applicationKey` of the token call. */
  apiKey: string;
  /** The app's API secret (`applicationSecret`); also keys the HMAC of our ref1s. */
  apiSecret: string;
  /** The biller id (15 digits) every QR pays and every answer must name. */
  billerId: string;
  /** Our reference 3 (three upper-case letters): SCB routes confirmations to the app by it. */
  ref3Prefix: string;
  qrMode: ScbQrMode;
  /** How long a QR may be paid: SCB's expiryDate in `api` mode, ours alone in `local` mode. */
  qrTtlMs: number;
  /** Per call: connecting and the whole answer. */
  timeoutMs: number;
  /** The secret last segment of the confirmation path (/processor/scb/confirm/<token>). */
  confirmPathToken: string;
  /** Addresses or CIDRs confirmations may come from; empty: any. */
  confirmAllowCidrs: string[];
};

const MANDATORY = [
  'SCB_BASE_URL',
  'SCB_API_KEY',
  'SCB_API_SECRET',
  'SCB_BILLER_ID',
  'SCB_REF3_PREFIX',
  'SCB_CONFIRM_PATH_TOKEN',
] as const;

export function readScb(r: EnvReader, connector: ProcessorConnectorName): ScbSettings | undefined {
  const selected = connector === 'scb';
  const text = (key: string) => r.str(key, '').trim();
  const baseUrl = text('SCB_BASE_URL').replace(/\/+$/, '');
  const apiKey = text('SCB_API_KEY');
  const apiSecret = text('SCB_API_SECRET');
  const billerId = text('SCB_BILLER_ID');
  if (billerId !== '' && !/^\d{15}$/.test(billerId))
    r.problems.push(`SCB_BILLER_ID="${billerId}" must be 15 digits (13-digit tax id + 2-digit suffix)`);
  const ref3Prefix = text('SCB_REF3_PREFIX');
  if (ref3Prefix !== '' && !/^[A-Z]{3}$/.test(ref3Prefix))
    r.problems.push(`SCB_REF3_PREFIX="${ref3Prefix}" must be the three upper-case letters SCB assigned (e.g. ABC)`);
  const qrMode = r.oneOf<ScbQrMode>('SCB_QR', 'api', ['api', 'local']);
  const qrTtlMs = r.duration('SCB_QR_TTL', '15m', 60_000, 86_400_000);
  const timeoutMs = r.duration('SCB_TIMEOUT', '10s', 100, 120_000);
  const confirmPathToken = text('SCB_CONFIRM_PATH_TOKEN');
  // The token is the confirmation's only credential: SCB signs nothing (docs/connectors/scb.md "Confirmation").
  if (confirmPathToken !== '' && !/^[A-Za-z0-9_-]{32,128}$/.test(confirmPathToken))
    r.problems.push(
      'SCB_CONFIRM_PATH_TOKEN must be 32-128 letters, digits, _ or - (e.g. openssl rand -hex 32; value not shown)',
    );
  const confirmAllowCidrs = readCidrs(r);
  if (baseUrl !== '') {
    const problem = scbBaseUrlProblem(baseUrl);
    if (problem) r.problems.push(`SCB_BASE_URL="${baseUrl}" ${problem}`);
  }

  if (!selected) return undefined;
  const values: Record<(typeof MANDATORY)[number], string> = {
    SCB_BASE_URL: baseUrl,
    SCB_API_KEY: apiKey,
    SCB_API_SECRET: apiSecret,
    SCB_BILLER_ID: billerId,
    SCB_REF3_PREFIX: ref3Prefix,
    SCB_CONFIRM_PATH_TOKEN: confirmPathToken,
  };
  for (const key of MANDATORY) {
    if (values[key] === '') r.problems.push(`${key} is required with PROCESSOR_CONNECTOR=scb`);
  }
  return {
    baseUrl,
    apiKey,
    apiSecret,
    billerId,
    ref3Prefix,
    qrMode,
    qrTtlMs,
    timeoutMs,
    confirmPathToken,
    confirmAllowCidrs,
  };
}

/**
 * What is wrong with an SCB base URL, if anything: an absolute https URL (http only to a loopback
 * host, for the local simulator), without credentials, query or fragment. SCB's paths sit under
 * a base path (`/partners`, `/partners/sandbox`), which is kept.
 */
export function scbBaseUrlProblem(baseUrl: string): string | undefined {
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
  return undefined;
}

function readCidrs(r: EnvReader): string[] {
  const raw = r.str('SCB_CONFIRM_ALLOW_CIDRS', '');
  const entries = splitList(raw);
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0) {
    r.problems.push(
      `SCB_CONFIRM_ALLOW_CIDRS="${raw}" must be a comma-separated list of IP addresses or CIDRs ` +
        `(not: ${bad.join(', ')})`,
    );
    return [];
  }
  return entries;
}
