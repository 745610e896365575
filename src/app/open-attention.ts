// How many needs-attention items are open (docs/operations.md "/metrics"): the
// `gateway_attention_open` gauge and the console's menu read it. Kept in memory so neither a
// scrape nor a page view reads the store for it ("Metrics in memory, not from the tables",
// docs/architecture.md): re-read in the background every 30 s, like the merchant directory polls,
// so items raised or resolved by another instance or the CLI show within that; and moved at once
// when this process raises or resolves one, so the operator who resolves an item sees the count go down.
import type { AttentionStore } from './ports/processor-store.ts';

export const ATTENTION_REFRESH_MS = 30_000;

export class OpenAttention {
  readonly #store: Pick<AttentionStore, 'countOpen'>;
  readonly #refreshMs: number;
  #value: number | undefined;
  #reading: Promise<void> | undefined;
  /** Set when this process raised or resolved an item while a count was being read. */
  #movedDuringRead = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<AttentionStore, 'countOpen'>, refreshMs = ATTENTION_REFRESH_MS) {
    this.#store = store;
    this.#refreshMs = refreshMs;
  }

  /** The count, or undefined before it was first read. */
  value(): number | undefined {
    return this.#value;
  }

  /** Reads the count from the store (one read at a time: callers during a read share it). */
  refresh(): Promise<void> {
    this.#reading ??= (async () => {
      this.#movedDuringRead = false;
      try {
        const count = await this.#store.countOpen();
        // A raise or resolve that moved the count during the read may or may not be in what was
        // read: keep the moved value, and let the next read settle it.
        if (!this.#movedDuringRead) this.#value = count;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  /** Re-reads every 30 s until stop(); the timer never keeps a process alive. */
  start(onError: (error: unknown) => void): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.refresh().catch(onError), this.#refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** This process raised an item (after the store wrote it). */
  raised(): void {
    this.#move(1);
  }

  /** This process resolved an item (after the store wrote it). */
  resolved(): void {
    this.#move(-1);
  }

  /** The attention port with this process's raises counted (the live use cases raise through it). */
  counting(store: Pick<AttentionStore, 'raise'>): Pick<AttentionStore, 'raise'> {
    return {
      raise: async (item) => {
        const raised = await store.raise(item);
        if (raised) this.raised();
        return raised;
      },
    };
  }

  #move(by: number): void {
    if (this.#reading) this.#movedDuringRead = true;
    if (this.#value !== undefined) this.#value = Math.max(0, this.#value + by);
  }
}
