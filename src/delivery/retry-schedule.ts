// What one delivery attempt means for the event: delivered, retry at T, or failed.
// Pure rules (no I/O) so they can be tested exhaustively; the worker applies them.
//
// The ladder lists the delay before each attempt of a series: entry 0 is the first attempt
// (always made as soon as the event is due), entry k the wait after the k-th failure. So the
// default `0,5s,5m,30m,2h,5h,10h,10h` makes 8 attempts over about 28 hours, then `failed`.
import type { AttemptTransition } from '../domain/outbox-event.ts';

/** A Retry-After longer than this is treated as this: a merchant cannot park an event forever. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export type AttemptResult =
  { kind: 'response'; status: number; retryAfter: string | undefined } | { kind: 'error'; error: string };

export type ScheduleOptions = {
  ladderMs: readonly number[];
  jitterPercent: number;
  /** Uniform in [0, 1); injectable so tests can pin it. */
  random: () => number;
};

export function isSuccess(result: AttemptResult): boolean {
  return result.kind === 'response' && result.status >= 200 && result.status <= 299;
}

/** The one-line reason stored as the event's last_error and shown by the CLI. */
export function describeFailure(result: AttemptResult): string {
  if (result.kind === 'error') return result.error;
  if (result.status >= 300 && result.status <= 399) return `HTTP ${result.status}: redirects are not followed`;
  return `HTTP ${result.status}`;
}

/**
 * Retry-After as milliseconds from `nowMs`: delta-seconds (`120`) or an HTTP date. Undefined
 * when absent or unreadable; a date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP date always names the weekday and GMT; requiring both keeps Date.parse's
  // leniency (it would read "5" or "tomorrow"-ish text) out of the schedule.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

/** `delay` ± jitterPercent, never negative. */
export function withJitter(delayMs: number, jitterPercent: number, random: () => number): number {
  if (delayMs <= 0 || jitterPercent <= 0) return Math.max(0, delayMs);
  const spread = (delayMs * jitterPercent) / 100;
  return Math.max(0, Math.round(delayMs - spread + random() * 2 * spread));
}

/**
 * The event's next state after attempt number `attemptInSeries` (1-based) ended with `result`
 * at `nowMs`. Retry-After (on 429 and 503 only: docs/notifications.md "Retries") can push the next
 * attempt later than the ladder would, never earlier, and never adds attempts.
 */
export function nextTransition(
  result: AttemptResult,
  attemptInSeries: number,
  nowMs: number,
  options: ScheduleOptions,
): AttemptTransition {
  if (isSuccess(result)) return { status: 'delivered', deliveredAt: nowMs };
  const lastError = describeFailure(result);
  const rung = options.ladderMs[attemptInSeries];
  if (rung === undefined) return { status: 'failed', lastError };
  let delay = withJitter(rung, options.jitterPercent, options.random);
  if (result.kind === 'response' && (result.status === 429 || result.status === 503)) {
    const retryAfter = parseRetryAfter(result.retryAfter, nowMs);
    if (retryAfter !== undefined) delay = Math.max(delay, retryAfter);
  }
  return { status: 'pending', nextAttemptAt: nowMs + delay, lastError };
}
