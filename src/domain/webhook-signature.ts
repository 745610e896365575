// Standard Webhooks signing (https://www.standardwebhooks.com/).
//
// signed content:  `${webhook-id}.${webhook-timestamp}.${raw body}`
// signature:       `v1,` + base64(HMAC-SHA256(key, signed content))
// key:             base64-decoded bytes of the secret after `whsec_`
//                  (the ASCII of the secret itself is NOT the key)
//
// Following the spec lets merchants verify with any Standard Webhooks
// library instead of only ours.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type VerifyResult = { ok: true } | { ok: false; reason: string };
export type WebhookHeaders = Record<string, string | string[] | undefined>;
export type VerifyOptions = { toleranceSeconds?: number; nowSeconds?: number };

/** A fresh secret: `whsec_` + base64 of 32 random bytes (256-bit HMAC key). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

// Strict decoding: Buffer.from(…, 'base64') silently skips junk, so a
// mangled secret would otherwise yield a different key and baffling
// "signature mismatch" errors instead of a clear configuration error.
// The prefix is optional because other Standard Webhooks tools accept both.
function secretKey(secret: string): Buffer | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '' || !BASE64.test(encoded)) return null;
  return Buffer.from(encoded, 'base64');
}

// `timestamp` is the header text as sent, so a verifier signs exactly those bytes.
function sign(key: Buffer, id: string, timestamp: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', key)
    .update(`${id}.${timestamp}.`)
    .update(rawBody)
    .digest('base64');
}

/**
 * The `webhook-signature` header value: one `v1,<sig>` per secret,
 * space-separated, so a merchant holding either the old or the new secret
 * keeps verifying while a rotation is in progress.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampSeconds: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('timestampSeconds must be a non-negative integer (Unix seconds)');
  }
  return secrets
    .map((secret) => {
      const key = secretKey(secret);
      if (!key) throw new Error('malformed webhook secret: expected whsec_<base64>');
      return `v1,${sign(key, id, String(timestampSeconds), rawBody)}`;
    })
    .join(' ');
}

// Header names are case-insensitive; frameworks differ in how they pass them.
function header(headers: WebhookHeaders, name: string): string[] {
  for (const [key, value] of Object.entries(headers)) {
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
 * Checks a received notification. Succeeds if the timestamp is within
 * tolerance (either direction, default 300 s) and ANY `v1` signature in the
 * header matches `secret`. Other version prefixes are ignored, as the spec
 * asks, so a future scheme can be added alongside v1.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  opts: VerifyOptions = {},
): VerifyResult {
  const key = secretKey(secret);
  if (!key) return { ok: false, reason: 'malformed secret: expected whsec_<base64>' };

  const id = single(headers, 'webhook-id');
  const timestamp = single(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature').join(' ');
  if (!id) return { ok: false, reason: 'missing webhook-id header' };
  if (!timestamp) return { ok: false, reason: 'missing webhook-timestamp header' };
  if (!signatures.trim()) return { ok: false, reason: 'missing webhook-signature header' };

  // Digits only: parseInt would accept "1614265330abc" and sign a different string.
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed webhook-timestamp' };
  const ts = Number(timestamp);
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // Old timestamps bound replay; future ones would let a captured message
  // be replayed later, so both directions are refused.
  if (ts < now - tolerance) return { ok: false, reason: 'timestamp too old' };
  if (ts > now + tolerance) return { ok: false, reason: 'timestamp too far in the future' };

  const expected = Buffer.from(sign(key, id, timestamp, rawBody));
  let sawV1 = false;
  for (const item of signatures.split(/\s+/)) {
    const comma = item.indexOf(',');
    if (comma < 0 || item.slice(0, comma) !== 'v1') continue;
    sawV1 = true;
    const candidate = Buffer.from(item.slice(comma + 1));
    // timingSafeEqual throws on unequal lengths; the length of a valid
    // signature is public (44 chars), so checking it first leaks nothing.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return { ok: true };
  }
  return { ok: false, reason: sawV1 ? 'no signature matched' : 'no v1 signature present' };
}
