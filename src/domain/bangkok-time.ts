// Asia/Bangkok time, which the gateway's days are counted in: the console's dates and searches,
// KBank's request times and void window, the daily reconciliation. Thailand is UTC+7 all year (no
// daylight saving time), so a fixed offset is exact and far cheaper than Intl per call.

export const BANGKOK_OFFSET_MS = 7 * 3_600_000;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Start of the calendar day `YYYY-MM-DD` in Thailand, in Unix ms; undefined when not a real date. */
export function bangkokDayStart(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return utc - BANGKOK_OFFSET_MS;
}

/** The calendar day of an instant in Thailand, `YYYY-MM-DD`. */
export function bangkokDate(at: number): string {
  return new Date(at + BANGKOK_OFFSET_MS).toISOString().slice(0, 10);
}

/** Days since 1970-01-01 in Thailand: two instants are on the same day when these are equal. */
export function bangkokDayNumber(at: number): number {
  return Math.floor((at + BANGKOK_OFFSET_MS) / DAY_MS);
}

/** Minutes past midnight in Thailand. */
export function bangkokMinute(at: number): number {
  return Math.floor(((((at + BANGKOK_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS) / 60_000);
}

export const DAY_IN_MS = DAY_MS;
