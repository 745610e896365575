// Reads single settings as typed values. A bad value is written down and its fallback used instead, so
// reading goes on and loadConfig can report every bad key at once: an operator fixes them all in one pass.
import { parseDecimal } from '../domain/money.ts';
import { parseDuration } from './duration.ts';

export type Env = Record<string, string | undefined>;

export class EnvReader {
  readonly env: Env;
  /** One line per bad key, in the order the keys were read. */
  readonly problems: string[] = [];

  constructor(env: Env) {
    this.env = env;
  }

  /** The value as written; unset and empty both mean the fallback. */
  str(key: string, fallback: string): string {
    const value = this.env[key];
    return value === undefined || value === '' ? fallback : value;
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const raw = this.str(key, String(fallback));
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.problems.push(`${key}="${raw}" must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  /** Milliseconds, written as a duration (see duration.ts). */
  duration(key: string, fallback: string, minMs: number, maxMs: number): number {
    const raw = this.str(key, fallback);
    const value = parseDuration(raw);
    if (value === undefined || value < minMs || value > maxMs) {
      this.problems.push(
        `${key}="${raw}" must be a duration like 500ms, 30s, 15m or 2h between ${minMs} ms and ${maxMs} ms`,
      );
      return parseDuration(fallback) ?? minMs;
    }
    return value;
  }

  bool(key: string, fallback: boolean): boolean {
    const raw = this.str(key, String(fallback)).toLowerCase();
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    this.problems.push(`${key}="${raw}" must be true or false`);
    return fallback;
  }

  oneOf<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.str(key, fallback) as T;
    if (!allowed.includes(raw)) {
      this.problems.push(`${key}="${raw}" must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return raw;
  }

  /** A positive amount with at most 2 decimals, in minor units (domain/money.ts). */
  amount(key: string, fallback: string): bigint {
    const raw = this.str(key, fallback);
    const parsed = parseDecimal(raw);
    if (!parsed || parsed.significantFractionDigits > 2 || parsed.minor <= 0n) {
      this.problems.push(`${key}="${raw}" must be a positive amount with at most 2 decimals`);
      return parseDecimal(fallback)?.minor ?? 0n;
    }
    return parsed.minor;
  }
}
