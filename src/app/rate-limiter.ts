// Fixed-window counters with a hard cap on tracked keys (TIGER_STYLE: a limit on everything),
// used for failed logins per client and requests per merchant.
//
// The cap must not make the limiter fail open: a flood of distinct keys (e.g. failed logins
// with made-up merchantids) used to fill the table, after which new keys were not tracked at
// all and real merchants lost their lockout. Now, when the table is full, the least recently
// counted key is forgotten (a key being hammered stays recent), and keys that reached their
// limit live in a separate table that fresh keys never push out, so a lockout holds for its
// window whatever else arrives. Memory stays bounded by 2 × maxKeys entries.
export class WindowCounter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  #windowStart = 0;
  /** Keys under their limit, in least-recently-counted order (Map keeps insertion order). */
  #counts = new Map<string, number>();
  /** Keys at or over their limit in this window. */
  #limited = new Set<string>();

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
      this.#limited = new Set();
    }
  }

  /** True while `key` is at or over its limit in the current window. */
  exceeded(key: string): boolean {
    this.#roll();
    return this.#limited.has(key) || (this.#counts.get(key) ?? 0) >= this.#limit;
  }

  /** Counts one event; returns true if this event is over the limit. */
  hit(key: string): boolean {
    this.#roll();
    if (this.#limited.has(key)) return true;
    const next = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.delete(key); // re-inserted below as the most recent
    if (next >= this.#limit) {
      if (this.#limited.size >= this.#maxKeys) this.#limited.delete(this.#limited.values().next().value!);
      this.#limited.add(key);
      return next > this.#limit;
    }
    if (this.#counts.size >= this.#maxKeys) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(key, next);
    return false;
  }

  /** Keys tracked right now (for tests and metrics): never more than 2 × maxKeys. */
  get trackedKeys(): number {
    return this.#counts.size + this.#limited.size;
  }
}
