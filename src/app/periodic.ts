// A task run again and again in the background: the next run `intervalMs` after the previous one
// ended, never two at once. What the workers that poll (the expiry sweeper, the payment search
// indexer) share; each decides what a run does and logs its own failures.
import type { Worker } from './worker.ts';

export class Periodic implements Worker {
  readonly #run: () => Promise<unknown>;
  readonly #intervalMs: number;
  readonly #firstDelayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  /** `run` must not reject: a failure it does not handle itself is dropped, and the next run comes anyway. */
  constructor(run: () => Promise<unknown>, intervalMs: number, firstDelayMs = intervalMs) {
    this.#run = run;
    this.#intervalMs = intervalMs;
    this.#firstDelayMs = firstDelayMs;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(this.#firstDelayMs);
  }

  /** No run starts from now on; the one in flight finishes first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#run()
        .catch(() => {})
        .finally(() => this.#schedule(this.#intervalMs));
    }, delayMs);
    // A background task alone must not keep the process alive (CLI commands, tests).
    this.#timer.unref();
  }
}
