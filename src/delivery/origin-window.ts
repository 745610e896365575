// How many notifications one origin may have in flight at once: a window that grows while the
// origin answers healthily and shrinks when it struggles (additive increase, multiplicative
// decrease; docs/notifications.md "How it works").
//
// A fixed per-origin cap limits one merchant to cap ÷ answer time: 4 slots at a shop's usual
// 250 ms answer is 16 notifications a second, fewer than the payments it takes at a busy hour,
// so its backlog grows without end although the shop is healthy. The window starts at
// DELIVERY_PER_HOST_CONCURRENCY (the floor, today's pacing of a failing endpoint) and gains one
// slot per window's worth of healthy answers (about one per round trip), up to
// DELIVERY_PER_HOST_MAX_CONCURRENCY; an answer that says "too much" (no answer at all, 429, 5xx)
// halves it, never below the floor. A failing endpoint therefore never gets more than the floor,
// exactly as before, and a healthy one climbs from 4 to 32 slots in a few seconds of traffic.

/** How one attempt's exchange went, for the window. */
export type ExchangeHealth = 'healthy' | 'overloaded' | 'unreachable';

/** Origins whose window is remembered at most (the memo starts over past this). */
const MAX_ORIGINS = 10_000;

/** The health an HTTP status says: 429 and 5xx ask for less; anything else was answered fine. */
export function healthOfStatus(status: number): ExchangeHealth {
  return status === 429 || status >= 500 ? 'overloaded' : 'healthy';
}

export class OriginWindows {
  readonly #floor: number;
  readonly #max: number;
  /** Fractional window per origin; only origins that grew or shrank are kept. */
  readonly #size = new Map<string, number>();

  constructor(floor: number, max: number) {
    this.#floor = floor;
    this.#max = Math.max(floor, max);
  }

  /** Sends `origin` may have in flight now. */
  size(origin: string): number {
    return Math.floor(this.#size.get(origin) ?? this.#floor);
  }

  /** Adjusts `origin`'s window after one exchange ended. */
  exchanged(origin: string, health: ExchangeHealth): void {
    if (this.#floor === this.#max) return;
    const size = this.#size.get(origin) ?? this.#floor;
    const next = health === 'healthy' ? Math.min(this.#max, size + 1 / size) : Math.max(this.#floor, size / 2);
    if (next === size) return;
    if (!this.#size.has(origin) && this.#size.size >= MAX_ORIGINS) this.#size.clear();
    if (next === this.#floor) this.#size.delete(origin);
    else this.#size.set(origin, next);
  }
}
