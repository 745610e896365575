// Standard Webhooks verification (https://www.standardwebhooks.com/) — the one implementation:
// the gateway signs with webhookKey/webhookSignature from this file (src/domain/webhook-signature.ts)
// and its `listen` command verifies with verifyNotification, as merchants do.
//
// signed content:  `${webhook-id}.${webhook-timestamp}.${raw body}`
// signature:       `v1,` + base64(HMAC-SHA256(key, signed content))
// key:             base64-decoded bytes of the secret after `whsec_` (not the ASCII of the secret)
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type VerifyResult = { ok: true } | { ok: false; reason: string };
/** Request headers as Node (`req.headers`), a framework or a plain object gives them; names are case-insensitive. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };
export type VerifyOptions = {
  /** Accepted clock difference in seconds, both directions. Default 300. */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds (tests); the system clock otherwise. */
  nowSeconds?: number;
};

/**
 * The HMAC key of a `whsec_…` secret, or null when it is not valid base64. Strict decoding:
 * Buffer.from(…, 'base64') silently skips junk, so a mangled secret would otherwise give another
 * key and a baffling "no signature matched". The prefix is optional, as in other tools.
 */
export function webhookKey(secret: string): Buffer | null {
  if (typeof secret !== 'string') return null;
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '' || !BASE64.test(encoded)) return null;
  return Buffer.from(encoded, 'base64');
}

/**
 * base64 HMAC-SHA256 over `id.timestamp.body`; `timestamp` is the header text as sent. The key
 * goes in as a KeyObject: Node 24's createHmac() spends ~9 µs checking a raw Buffer before using
 * it, and createSecretKey() + createHmac() together take ~2.5 µs (the gateway signs every
 * notification attempt with this, merchants verify every notification with it).
 */
export function webhookSignature(key: Buffer, id: string, timestamp: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', createSecretKey(key)).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
}

function header(headers: WebhookHeaders, name: string): string[] {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return value === null ? [] : [value];
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value : [value];
  }
  return [];
}

function single(headers: WebhookHeaders, name: string): string | null {
  const values = header(headers, name);
  // Two ids or two timestamps means someone is playing games; refuse.
  return values.length === 1 ? (values[0] ?? null) : null;
}

/**
 * Checks a received notification against one secret or several (during a rotation, pass both
 * the new and the old one). `{ ok: true }` when the timestamp is within the tolerance (either
 * direction) and any `v1` signature in the header matches any secret (constant-time compare);
 * otherwise `{ ok: false, reason }`: log the reason, answer 4xx, and do not act on the body.
 * `rawBody` must be the bytes as received: re-serialised JSON does not verify.
 */
export function verifyNotification(
  secrets: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): VerifyResult {
  const keys = keysOf(secrets);
  if (!Array.isArray(keys)) return keys;

  const id = single(headers, 'webhook-id');
  const timestamp = single(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature').join(' ');
  if (!id) return { ok: false, reason: 'missing webhook-id header' };
  if (!timestamp) return { ok: false, reason: 'missing webhook-timestamp header' };
  if (!signatures.trim()) return { ok: false, reason: 'missing webhook-signature header' };

  // Digits only: parseInt would accept "1614265330abc" and sign a different string.
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed webhook-timestamp' };
  return checkSigned(keys, id, timestamp, signatures, rawBody, options);
}

/**
 * The HMAC keys of one secret or several; the failure to answer when there is none or one is
 * malformed. Shared with return-signature.ts, which signs with the same secrets.
 */
export function keysOf(secrets: string | readonly string[]): Buffer[] | { ok: false; reason: string } {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) return { ok: false, reason: 'no secret given' };
  const keys: Buffer[] = [];
  for (const secret of list) {
    const key = webhookKey(secret);
    if (!key) return { ok: false, reason: 'malformed secret: expected whsec_<base64>' };
    keys.push(key);
  }
  return keys;
}

/**
 * The checks after the message's own fields were read: `timestamp` (digits, as sent) within the
 * tolerance, and any `v1` signature in `signatures` equal to the HMAC of `id.timestamp.content`
 * under any key (constant-time compare). Shared with return-signature.ts.
 */
export function checkSigned(
  keys: readonly Buffer[],
  id: string,
  timestamp: string,
  signatures: string,
  content: string | Uint8Array,
  options: VerifyOptions,
): VerifyResult {
  const ts = Number(timestamp);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // Old timestamps bound replay; future ones would let a captured message be replayed later.
  if (ts < now - tolerance) return { ok: false, reason: 'timestamp too old' };
  if (ts > now + tolerance) return { ok: false, reason: 'timestamp too far in the future' };

  const candidates: Buffer[] = [];
  for (const item of signatures.split(/\s+/)) {
    const comma = item.indexOf(',');
    // Other versions are ignored, as the spec asks, so a future scheme can sit beside v1.
    if (comma >= 0 && item.slice(0, comma) === 'v1') candidates.push(Buffer.from(item.slice(comma + 1)));
  }
  if (candidates.length === 0) return { ok: false, reason: 'no v1 signature present' };
  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(webhookSignature(key, id, timestamp, content));
    for (const candidate of candidates) {
      // timingSafeEqual needs equal lengths; a valid signature's length (44) is public.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched ? { ok: true } : { ok: false, reason: 'no signature matched' };
}
