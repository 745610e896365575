// Merchant credentials. Passwords are generated with 192 random bits, so a keyed hash
// (HMAC-SHA256 under the gateway's secret key) is as strong as a slow KDF would be and
// costs microseconds on the request path. Comparisons are constant-time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretKey = Buffer;

export function generatePassword(): string {
  return `pw_${randomBytes(24).toString('base64url')}`;
}

export function hashPassword(key: SecretKey, password: string): string {
  return createHmac('sha256', key).update('merchant-password\0').update(password, 'utf8').digest('base64url');
}

/** Constant-time check; `storedHash` undefined (unknown merchant) still costs one HMAC. */
export function passwordMatches(key: SecretKey, password: string, storedHash: string | undefined): boolean {
  const candidate = Buffer.from(hashPassword(key, password));
  const expected = Buffer.from(storedHash ?? DUMMY_HASH);
  const equal = candidate.length === expected.length && timingSafeEqual(candidate, expected);
  return equal && storedHash !== undefined;
}

const DUMMY_HASH = 'A'.repeat(43);

/** Canonical request fingerprint for idempotency: a hash of the normalised request. */
export function fingerprint(key: SecretKey, canonical: string): string {
  return createHmac('sha256', key).update('request-fingerprint\0').update(canonical).digest('base64url');
}
