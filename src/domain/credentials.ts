// Merchant credentials. Passwords are generated with 192 random bits, so a keyed hash
// (HMAC-SHA256 under the gateway's secret key) is as strong as a slow KDF would be and
// costs microseconds on the request path. Comparisons are constant-time.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

export type SecretKey = Buffer;

// createHmac() with a raw Buffer builds a KeyObject on every call (~8 µs); make it once per key.
const keyObjects = new WeakMap<SecretKey, KeyObject>();
export function hmacKey(key: SecretKey): KeyObject {
  let object = keyObjects.get(key);
  if (!object) {
    object = createSecretKey(key);
    keyObjects.set(key, object);
  }
  return object;
}

export function generatePassword(): string {
  return `pw_${randomBytes(24).toString('base64url')}`;
}

export function hashPassword(key: SecretKey, password: string): string {
  return createHmac('sha256', hmacKey(key)).update('merchant-password\0').update(password, 'utf8').digest('base64url');
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
  return createHmac('sha256', hmacKey(key)).update('request-fingerprint\0').update(canonical).digest('base64url');
}
