// Fixed-window counters with a hard cap on tracked keys (TIGER_STYLE: a limit on everything),
// used for failed logins per client and requests per merchant.
export class WindowCounter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  #windowStart = 0;
  #counts = new Map<string, number>();

  constructor(limit: number, windowMs: number, now: () => number = Date.now, maxKeys = 100_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#now = now;
    this.#maxKeys = maxKeys;
  }

  #roll(): void {
    const now = this.#now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#counts = new Map();
    }
  }

  /** True while `key` is at or over its limit in the current window. */
  exceeded(key: string): boolean {
    this.#roll();
    return (this.#counts.get(key) ?? 0) >= this.#limit;
  }

  /** Counts one event; returns true if this event is over the limit. */
  hit(key: string): boolean {
    this.#roll();
    const next = (this.#counts.get(key) ?? 0) + 1;
    if (this.#counts.size < this.#maxKeys || this.#counts.has(key)) this.#counts.set(key, next);
    return next > this.#limit;
  }
}
