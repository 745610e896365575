// The reference both banks' connectors derive for an attempt (KBank's partnerTxnUid, SCB's ref1;
// docs/connectors/kbank.md "Ids", docs/connectors/scb.md "The QR"): `prefix` + 14 base-36
// characters of HMAC-SHA256(secret, seed). The same seed gives the same reference, so an instance
// that retries after a crash reaches the request it made and racing instances agree; nobody
// without the secret can guess another payment's.
import { createHmac } from 'node:crypto';

const BASE36_DIGITS = 14;
const BASE36_SPACE = 36n ** BigInt(BASE36_DIGITS);

/** `prefix` + the 14 upper-case base-36 digits of `value` (modulo 36^14). */
export function base36Reference(prefix: string, value: bigint): string {
  return prefix + (value % BASE36_SPACE).toString(36).toUpperCase().padStart(BASE36_DIGITS, '0');
}

export function derivedReference(prefix: string, secret: string, seed: string): string {
  const digest = createHmac('sha256', secret).update(seed).digest();
  return base36Reference(prefix, BigInt(`0x${digest.subarray(0, 16).toString('hex')}`));
}
