// Token and redirect id that carry their own lookup key (docs/architecture.md "Identifiers"):
// base64url of  version (1 byte, 0x01) ‖ the transaction id's 16 UUID bytes ‖ 16-byte MAC.
// One HMAC-SHA256 under a sub-key of GATEWAY_SECRET_KEY over version ‖ id gives 32 bytes: the
// token carries the first 16, the redirect id the last 16. The halves of one HMAC are independent
// (knowing one tells nothing of the other), so a token can neither be presented as a redirect id
// nor turned into one, and an initiation pays one HMAC for both instead of two.
// 33 bytes are exactly 44 characters (no padding, one spelling per value). The gateway finds the
// payment behind one by checking the MAC (constant time) and reading the row by primary key, so
// neither column needs an index of its own (docs/performance.md "Keyed identifiers").
//
// The sub-key is derived from GATEWAY_SECRET_KEY as the webhook sealing key is
// (domain/secret-box.ts), with a label of its own. Ids issued before migration 019 are random
// strings of 43 (token) and 32 (redirect id) characters: never 44, so the forms cannot be confused.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SecretKey } from './credentials.ts';

export type KeyedIdKind = 'token' | 'redirect-id';

/** The length of every keyed token and redirect id; ids of the earlier form are never this long. */
export const KEYED_ID_LENGTH = 44;
const VERSION = 0x01;
const ID_BYTES = 16;
const MAC_BYTES = 16;
const TOTAL_BYTES = 1 + ID_BYTES + MAC_BYTES;
const KEYED_ID = /^[A-Za-z0-9_-]{44}$/;

// The sub-key, made once per secret key (createHmac with a KeyObject costs ~1.4 µs, with a raw
// Buffer ~9 µs: docs/performance.md "Smaller items").
const subKeys = new WeakMap<SecretKey, KeyObject>();
function subKey(key: SecretKey): KeyObject {
  let sub = subKeys.get(key);
  if (!sub) {
    sub = createSecretKey(createHmac('sha256', key).update('transaction-identifiers\0token|redirect-id').digest());
    subKeys.set(key, sub);
  }
  return sub;
}

/** Where each kind's MAC lies in the one HMAC of a transaction id. */
const HALF: Record<KeyedIdKind, number> = { token: 0, 'redirect-id': MAC_BYTES };

/** The 32-byte HMAC of `prefix` (version ‖ id): the token's MAC, then the redirect id's. */
function macs(key: SecretKey, prefix: Buffer): Buffer {
  return createHmac('sha256', subKey(key)).update(prefix).digest();
}

/** The 16 bytes of a UUID written as 8-4-4-4-12 hex; undefined for any other text. */
function uuidBytes(id: string): Buffer | undefined {
  const hex = id.replaceAll('-', '');
  return /^[0-9a-f]{32}$/.test(hex) && id.length === 36 ? Buffer.from(hex, 'hex') : undefined;
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The token and redirect id of the transaction `transactionId` (a UUID, lower-case hex), from one HMAC. */
export function keyedIds(key: SecretKey, transactionId: string): Record<KeyedIdKind, string> {
  const id = uuidBytes(transactionId);
  if (!id) throw new Error('keyed ids: the transaction id is not a UUID');
  const prefix = Buffer.allocUnsafe(1 + ID_BYTES);
  prefix[0] = VERSION;
  id.copy(prefix, 1);
  const both = macs(key, prefix);
  const encode = (kind: KeyedIdKind) =>
    Buffer.concat([prefix, both.subarray(HALF[kind], HALF[kind] + MAC_BYTES)]).toString('base64url');
  return { token: encode('token'), 'redirect-id': encode('redirect-id') };
}

/** The keyed `kind` identifier of the transaction `transactionId`. */
export function keyedId(key: SecretKey, kind: KeyedIdKind, transactionId: string): string {
  return keyedIds(key, transactionId)[kind];
}

/**
 * The transaction id `value` carries when it is a keyed `kind` identifier whose MAC verifies
 * under `key` (compared in constant time); undefined otherwise (wrong length or alphabet, another
 * version, a forged or another transaction's MAC, the other kind's identifier).
 */
export function transactionIdOf(key: SecretKey, kind: KeyedIdKind, value: string): string | undefined {
  if (!KEYED_ID.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== TOTAL_BYTES || bytes[0] !== VERSION) return undefined;
  const expected = macs(key, bytes.subarray(0, 1 + ID_BYTES)).subarray(HALF[kind], HALF[kind] + MAC_BYTES);
  if (!timingSafeEqual(expected, bytes.subarray(1 + ID_BYTES))) return undefined;
  return uuidText(bytes.subarray(1, 1 + ID_BYTES));
}

/** True for a value of the keyed form's shape (whether or not its MAC verifies). */
export function hasKeyedShape(value: string): boolean {
  return KEYED_ID.test(value);
}
