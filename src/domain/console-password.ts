// Passwords people choose (console operators, merchants' console logins). Unlike the API's
// generated 192-bit passwords they can be guessed offline, so they are stored with a slow,
// memory-hard KDF: scrypt (node:crypto), run off the main thread (libuv pool) so a login never
// blocks other requests. The stored string carries its parameters and salt, so the cost can
// be raised later without invalidating existing hashes:
//   scrypt$<log2 N>$<r>$<p>$<salt base64url>$<hash base64url>
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export type ScryptParams = { log2N: number; r: number; p: number };

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and ~50-100 ms per hash (OWASP's minimum for scrypt is N = 2^17 with r = 8 at
 * p = 1; we trade some cost for fewer parallel logins exhausting memory, and throttle logins).
 */
export const DEFAULT_SCRYPT: ScryptParams = { log2N: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Bounds for stored parameters, so a tampered row cannot make a login allocate gigabytes. */
const MAX_LOG2N = 20;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.log2N;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 128 * N * params.r * params.p + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashConsolePassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return ['scrypt', params.log2N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![log2N, r, p].every(Number.isInteger) || log2N < 10 || log2N > MAX_LOG2N || r < 1 || r > 32 || p < 1 || p > 16)
    return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || key.length !== KEY_LENGTH) return undefined;
  return { params: { log2N, r, p }, salt, key };
}

// Checked when there is no account, so an unknown name costs the same as a wrong password.
let dummy: Promise<string> | undefined;

/**
 * Constant-time check, and every failure costs one scrypt: no such account (`stored` undefined),
 * an unreadable stored hash, and a password longer than any that can be set (hashed as an empty
 * one instead, so its length costs nothing extra either) all cost the same as a wrong password.
 */
export async function consolePasswordMatches(password: string, stored: string | undefined): Promise<boolean> {
  dummy ??= hashConsolePassword('not a password');
  const own = stored === undefined ? undefined : parse(stored);
  const parsed = own ?? parse(await dummy)!;
  const tooLong = password.length > MAX_PASSWORD_LENGTH;
  const candidate = await derive(tooLong ? '' : password, parsed.salt, parsed.params);
  return timingSafeEqual(candidate, parsed.key) && own !== undefined && !tooLong;
}

/** A password people choose: long enough to resist online guessing with throttling. */
export function consolePasswordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `it must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `it must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(password)) return 'it must not contain control characters';
  return undefined;
}

/** A generated console password (printed once by the CLI or shown once in the console). */
export function generateConsolePassword(): string {
  return randomBytes(18).toString('base64url');
}
