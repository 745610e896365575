// Durations in settings: a whole number with an optional unit, ms when it has none (500ms, 30s, 15m, 2h).
const DURATION = /^(\d+)(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds; undefined when the text is no duration or too large to hold exactly. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  return Number.isSafeInteger(value) ? value : undefined;
}
