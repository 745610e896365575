// Fixed-window counters with a hard cap on tracked keys (TIGER_STYLE: a limit on everything),
// used for failed logins per client and requests per merchant.
//
// The cap must not make the limiter fail open: a flood of distinct keys (e.g. failed logins
// with made-up merchantids) used to fill the table, after which new keys were not tracked at
// all and real merchants lost their lockout. Keys under their limit are kept in
// least-recently-counted order and the oldest is forgotten when that table is full (a key being
// hammered stays recent). Keys that reached their limit live in a table of their own that
// nothing pushes out within the window: when it is full, keys it does not know yet are refused
// (fail closed) until the window ends, rather than forgetting a lockout. Memory stays bounded by
// 2 × maxKeys entries (docs/operations.md "Failed-login lockout").
//
// `take` counts before the work it guards (a password hash), so however many attempts run at
// once, at most `limit` of them per key and window get to do it; `release` gives one back when
// the attempt turned out not to be a failure.

/** What `take` counted, for `release`; only the window it was taken in can be given back. */
export type Taken = { readonly keys: readonly string[]; readonly windowStart: number };

export class WindowCounter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  #windowStart = 0;
  /** Keys under their limit, in least-recently-counted order (Map keeps insertion order). */
  #counts = new Map<string, number>();
  /** Keys at or over their limit in this window, with their counts; never pushed out. */
  #limited = new Map<string, number>();

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
      this.#limited = new Map();
    }
  }

  /** The lockout table is full: a key not tracked yet cannot be, so it is refused. */
  #full(): boolean {
    return this.#limited.size >= this.#maxKeys;
  }

  #exceeded(key: string): boolean {
    if (this.#limited.has(key)) return true;
    const count = this.#counts.get(key);
    return count === undefined ? this.#full() : count >= this.#limit;
  }

  /** True while `key` is at or over its limit in the current window (or is new while the table is full). */
  exceeded(key: string): boolean {
    this.#roll();
    return this.#exceeded(key);
  }

  #count(key: string): void {
    const limited = this.#limited.get(key);
    if (limited !== undefined) {
      this.#limited.set(key, limited + 1);
      return;
    }
    const next = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.delete(key); // re-inserted below as the most recent
    if (next >= this.#limit && !this.#full()) {
      this.#limited.set(key, next);
      return;
    }
    // Only a key already tracked gets here while the lockout table is full (new ones are
    // refused), so nothing is pushed out then and a key at its limit stays counted.
    this.#setCount(key, next);
  }

  #setCount(key: string, count: number): void {
    if (this.#counts.size >= this.#maxKeys) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(key, count);
  }

  /** Counts one event; returns true if this event is over the limit (a refused new key is not counted). */
  hit(key: string): boolean {
    this.#roll();
    if (!this.#limited.has(key) && !this.#counts.has(key) && this.#full()) return true;
    this.#count(key);
    return (this.#limited.get(key) ?? this.#counts.get(key)!) > this.#limit;
  }

  /**
   * Counts one attempt on every key before the work it guards, all or none: undefined (nothing
   * counted) when any key is at its limit. Synchronous, so attempts racing each other are
   * counted one by one.
   */
  take(keys: readonly string[]): Taken | undefined {
    this.#roll();
    if (keys.some((key) => this.#exceeded(key))) return undefined;
    for (const key of keys) this.#count(key);
    return { keys, windowStart: this.#windowStart };
  }

  /** Gives back what `take` counted (the attempt succeeded); nothing once the window has moved on. */
  release(taken: Taken): void {
    this.#roll();
    if (taken.windowStart !== this.#windowStart) return;
    for (const key of taken.keys) {
      const limited = this.#limited.get(key);
      if (limited !== undefined) {
        if (limited - 1 >= this.#limit) this.#limited.set(key, limited - 1);
        else {
          this.#limited.delete(key);
          if (limited - 1 > 0) this.#setCount(key, limited - 1);
        }
        continue;
      }
      const count = this.#counts.get(key);
      if (count === undefined) continue; // pushed out meanwhile
      if (count > 1) this.#counts.set(key, count - 1);
      else this.#counts.delete(key);
    }
  }

  /** Keys tracked right now (for tests and metrics): never more than 2 × maxKeys. */
  get trackedKeys(): number {
    return this.#counts.size + this.#limited.size;
  }
}
