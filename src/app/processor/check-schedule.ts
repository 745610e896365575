// When the reconciler looks at an open attempt again (docs/connectors/kbank.md "Reconciler"): soon
// after it is created (a customer who pays does so within a minute or two), then every minute
// until the processor's answer is final. A lost notification delays a payment by seconds, not
// forever, and the processor sees a modest, bounded rate of queries.
const STEPS_MS = [15_000, 30_000, 60_000];
const EVERY_MS = 60_000;

/** The next check of an attempt checked `checks` times so far. */
export function nextCheckAfter(checks: number, now: number): number {
  return now + (STEPS_MS[checks] ?? EVERY_MS);
}

/** The first check of a new attempt. */
export function firstCheck(now: number): number {
  return now + STEPS_MS[0]!;
}
