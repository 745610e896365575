// A check value of the gateway's secret key: HMAC-SHA256 of a fixed label under the key. It
// reveals nothing usable about the key, yet two processes with different keys get different
// values, so the store can remember the first one and every later process can compare.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { hmacKey, type SecretKey } from './credentials.ts';

export function secretKeyCheckValue(key: SecretKey): string {
  return `v1.${createHmac('sha256', hmacKey(key)).update('gateway-secret-key-check\0').digest('base64url')}`;
}

export function secretKeyMatches(key: SecretKey, storedCheck: string): boolean {
  const candidate = Buffer.from(secretKeyCheckValue(key));
  const stored = Buffer.from(storedCheck);
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}

/** Raised at start-up (server or CLI) when the key differs from the one the store was first used with. */
export class SecretKeyMismatchError extends Error {
  constructor() {
    super(
      'GATEWAY_SECRET_KEY differs from the key this database was first started with, ' +
        'so every merchant password and webhook secret would fail: ' +
        'start every instance and the CLI with that same key ' +
        '(GATEWAY_SECRET_KEY, or the file named by GATEWAY_SECRET_KEY_FILE).',
    );
    this.name = 'SecretKeyMismatchError';
  }
}
