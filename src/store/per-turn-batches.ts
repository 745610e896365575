// Collects the requests of one event-loop turn and hands them to `run` in batches of at most
// `maxBatch`, several batches in flight at once (each on its own pooled connection). What the
// PostgreSQL initiation INSERT and the transaction lookups share: one statement for a turn's worth
// of rows instead of one per request.
export type Pending<I, O> = { input: I; resolve: (value: O) => void; reject: (error: unknown) => void };

export class PerTurnBatches<I, O> {
  readonly #maxBatch: number;
  readonly #run: (batch: Array<Pending<I, O>>) => Promise<void>;
  #queue: Array<Pending<I, O>> = [];
  #scheduled = false;

  constructor(maxBatch: number, run: (batch: Array<Pending<I, O>>) => Promise<void>) {
    this.#maxBatch = maxBatch;
    this.#run = run;
  }

  add(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0) void this.#run(this.#queue.splice(0, this.#maxBatch));
  }
}
