// Identifiers. Transaction ids are UUIDv7 (RFC 9562): time-ordered and unique across
// instances without coordination. Tokens and redirect ids are independent 128+ bit secrets.
import { randomBytes } from 'node:crypto';

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
 * The three identifiers of a new transaction from ONE draw of 72 random bytes (16 for the
 * UUIDv7, 32 for the token, 24 for the redirect id): each randomBytes() is a syscall.
 */
export function newTransactionIdentifiers(nowMs: number): { id: string; token: string; redirectId: string } {
  const bytes = randomBytes(72);
  return {
    id: uuidv7(nowMs, bytes.subarray(0, 16)),
    token: bytes.subarray(16, 48).toString('base64url'),
    redirectId: bytes.subarray(48, 72).toString('base64url'),
  };
}
export const newEventId = (): string => `evt_${uuidv7().replaceAll('-', '')}`;
