// Identifiers. Transaction ids are UUIDv7 (RFC 9562): time-ordered and unique across
// instances without coordination. Tokens and redirect ids are independent 128+ bit secrets.
import { randomBytes, randomFillSync } from 'node:crypto';

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
 * The three identifiers of a new transaction from ONE draw of 60 random bytes from the pool.
 * `token` and `redirect_id` start with the creation time (48-bit milliseconds, big-endian) before
 * their random bits: their unique indexes then grow at the right-hand edge instead of touching a
 * random page per insert, which made index maintenance the largest part of a commit
 * (docs/performance.md). The random part alone still carries ≥ 128 bits (token 208, redirect id
 * 144), and both keep today's lengths (43 and 32 URL-safe characters). The time they reveal is
 * already public in the UUIDv7 transaction id.
 */
export function newTransactionIdentifiers(nowMs: number): { id: string; token: string; redirectId: string } {
  const random = drawRandomBytes(16 + 26 + 18);
  const token = Buffer.allocUnsafe(32);
  token.writeUIntBE(nowMs, 0, 6);
  random.copy(token, 6, 16, 42);
  const redirectId = Buffer.allocUnsafe(24);
  redirectId.writeUIntBE(nowMs, 0, 6);
  random.copy(redirectId, 6, 42, 60);
  return {
    id: uuidv7(nowMs, random.subarray(0, 16)),
    token: token.toString('base64url'),
    redirectId: redirectId.toString('base64url'),
  };
}
export const newEventId = (): string => `evt_${uuidv7().replaceAll('-', '')}`;
