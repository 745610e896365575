// Readiness that tracks writes, not only reachability. A store can answer `select 1` while every
// write fails (SQLite on a full disk; PostgreSQL out of disk): then /readyz must say unavailable,
// so the load balancer stops sending payments here, and come back by itself once writes work.
// Requests report store-unavailable failures here; while one is outstanding, each readiness
// check tries a one-row write, and its success clears the failure. Without failures, readiness
// costs one read, as before.
import type { Store } from './ports/store.ts';

const PROBE = 'readiness_write_probe';

export class StoreHealth {
  readonly #store: Pick<Store, 'ping' | 'meta' | 'isUnavailable'>;
  readonly #now: () => number;
  #failing = false;

  constructor(store: Pick<Store, 'ping' | 'meta' | 'isUnavailable'>, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /** Whether `error` is the store being unreachable, full or busy (answered 503), not a refusal. */
  readonly isUnavailable = (error: unknown): boolean => this.#store.isUnavailable(error);

  /** A request failed because the store could not serve it (the HTTP layer's 503 path). */
  reportUnavailable(): void {
    this.#failing = true;
  }

  /** True when the store answers and, after a reported failure, accepts a write again. */
  async ready(): Promise<boolean> {
    try {
      await this.#store.ping();
      if (this.#failing) {
        await this.#store.meta.put(PROBE, String(this.#now()), this.#now());
        this.#failing = false;
      }
      return true;
    } catch {
      return false;
    }
  }
}
