// Identifiers. Transaction ids are UUIDv7 (RFC 9562): time-ordered and unique across
// instances without coordination. Tokens and redirect ids carry the id and a MAC (keyed-ids.ts).
import { randomBytes, randomFillSync } from 'node:crypto';
import type { SecretKey } from './credentials.ts';
import { keyedIds } from './keyed-ids.ts';

// Random bytes for new transactions come from a pool filled 4 KiB at a time: one call into
// OpenSSL per ~68 initiations instead of one per initiation (docs/performance.md). Every refill
// is a NEW buffer, so bytes handed out are never overwritten or handed out twice; a slice keeps
// its 4 KiB buffer alive only while it is referenced. No pooled byte is ever exposed except as
// the random part of the identifier it was drawn for.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** `n` (≤ 4096) fresh cryptographically random bytes from the pool. */
export function drawRandomBytes(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return bytes;
}

export function uuidv7(nowMs: number = Date.now(), bytes: Buffer = randomBytes(16)): string {
  let ms = BigInt(nowMs);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70; // version 7
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** URL-safe random string carrying `bytes * 8` bits of entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The three identifiers of a new transaction: the UUIDv7 id from 16 pooled random bytes, and the
 * token and redirect id that carry it with a MAC: the two halves of one HMAC under a sub-key of
 * the gateway key (domain/keyed-ids.ts). Finding a payment by either is a MAC check and a primary-key read, so
 * the initiation's INSERT maintains no index for them (docs/architecture.md "Identifiers").
 */
export function newTransactionIdentifiers(
  nowMs: number,
  key: SecretKey,
): { id: string; token: string; redirectId: string } {
  const id = uuidv7(nowMs, drawRandomBytes(16));
  const keyed = keyedIds(key, id);
  return { id, token: keyed.token, redirectId: keyed['redirect-id'] };
}
export const newEventId = (): string => `evt_${uuidv7().replaceAll('-', '')}`;
