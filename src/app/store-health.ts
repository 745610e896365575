// Readiness that tracks writes, not only reachability. A store can answer `select 1` while every
// write fails (SQLite on a full disk; PostgreSQL out of disk): then /readyz must say unavailable,
// so the load balancer stops sending payments here, and come back by itself once writes work.
// Requests report store-unavailable failures here; while one is outstanding, each readiness
// check tries a write as large as a payment's, and only its success clears the failure. Without
// failures, readiness costs one read, as before.
//
// Why as large: a tiny probe row still fitted where a payment did not (on a full disk, /readyz
// answered 200 while every initiation and completion answered 503). A payment committed alone
// writes its row and a page of each index it touches, about 50 KB of SQLite WAL
// (docs/operations.md "Disk space"); the probe's value is PROBE_BYTES of random text (random, so
// PostgreSQL cannot compress it away), which takes at least as many pages.
import { randomBytes } from 'node:crypto';
import type { Store } from './ports/store.ts';

const PROBE = 'readiness_write_probe';
/** At least what one payment commit writes (docs/operations.md "Disk space"). */
export const PROBE_BYTES = 64 * 1024;

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
        await this.#store.meta.writeProbe(PROBE, probeValue(this.#now()), this.#now());
        this.#failing = false;
      }
      return true;
    } catch {
      return false;
    }
  }
}

/** The probe's time, then random base64 up to PROBE_BYTES. */
function probeValue(now: number): string {
  return `${now} ${randomBytes((PROBE_BYTES * 3) / 4).toString('base64')}`.slice(0, PROBE_BYTES);
}
