// The bank simulators' clock and the bank's calendar. Everything a bank decides by time (a token's
// and a QR's expiry, "the same day", the void cut-off, settlement) reads this clock and nothing
// else. It starts fixed and moves only when told (setClock / advance, POST /__sim/clock); a
// ticking clock (the CLI's --real-clock) follows real time from wherever it was last set.
// Thailand keeps UTC+7 all year (no daylight saving), so Asia/Bangkok days and times of day are
// plain arithmetic on Unix milliseconds.
export const BANGKOK_OFFSET_MS = 7 * 60 * 60 * 1000;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export type SimClock = {
  now(): number;
  set(at: number): void;
  advance(ms: number): void;
  readonly ticking: boolean;
};

export function createClock(start: number, ticking = false, realNow: () => number = Date.now): SimClock {
  let anchor = start;
  let anchoredAt = realNow();
  const now = () => (ticking ? anchor + (realNow() - anchoredAt) : anchor);
  const set = (at: number) => {
    anchor = at;
    anchoredAt = realNow();
  };
  return { now, set, advance: (ms) => set(now() + ms), ticking };
}

/** Days since 1970-01-01 in Asia/Bangkok. */
export function bangkokDay(at: number): number {
  return Math.floor((at + BANGKOK_OFFSET_MS) / DAY_MS);
}

/** Minutes since local midnight in Asia/Bangkok (0–1439). */
export function bangkokMinute(at: number): number {
  const local = at + BANGKOK_OFFSET_MS;
  return Math.floor((((local % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
}

/** The instant of `minute` past midnight on Bangkok day `day`. */
export function bangkokInstant(day: number, minute: number): number {
  return day * DAY_MS + minute * MINUTE_MS - BANGKOK_OFFSET_MS;
}

/** "23:00" → 1380; null for anything that is not HH:MM on a 24-hour clock. */
export function parseTimeOfDay(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** 1380 → "23:00". */
export function formatTimeOfDay(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** ISO 8601 with a zone (`Z` or `±hh:mm`) → Unix ms; null otherwise. */
export function parseIsoInstant(text: string): number | null {
  if (!ISO_WITH_ZONE.test(text)) return null;
  // Date.parse keeps milliseconds only; more fraction digits (.NET's "o" has 7) are cut, not rounded.
  const at = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(at) ? at : null;
}

/** A clock setting from the API or the options: ISO text with a zone, Unix ms, or a Date. */
export function toInstant(value: string | number | Date): number | null {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : null;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null;
  return parseIsoInstant(value);
}

/** Unix ms → `2026-01-05T10:00:00.000+07:00`. */
export function bangkokIso(at: number): string {
  return new Date(at + BANGKOK_OFFSET_MS).toISOString().replace('Z', '+07:00');
}
