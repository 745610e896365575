// Collects the requests of one event-loop turn and hands them to `run` in batches of at most
// `maxBatch`, each on its own pooled connection. What the PostgreSQL initiation INSERT and the
// transaction lookups share: one statement for a turn's worth of rows instead of one per request.
//
// At most `maxInFlight` batches run at once; requests arriving meanwhile wait and leave together
// when a batch finishes. An idle store therefore sees each request at once, and a busy one sees
// fewer, larger statements: every statement is a socket write that wakes a PostgreSQL backend
// and (for the INSERT) a commit that waits for its WAL flush, and on this 2-core machine those
// writes were a fifth of the HTTP thread's time with a batch per turn (docs/performance.md).
export type Pending<I, O> = { input: I; resolve: (value: O) => void; reject: (error: unknown) => void };

export class PerTurnBatches<I, O> {
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  readonly #run: (batch: Array<Pending<I, O>>) => Promise<void>;
  #queue: Array<Pending<I, O>> = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(maxBatch: number, maxInFlight: number, run: (batch: Array<Pending<I, O>>) => Promise<void>) {
    this.#maxBatch = maxBatch;
    this.#maxInFlight = maxInFlight;
    this.#run = run;
  }

  add(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flush();
      });
    });
  }

  #flush(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#maxInFlight) {
      this.#inFlight += 1;
      const batch = this.#queue.splice(0, this.#maxBatch);
      // `run` settles every request of its batch itself; should it throw, none is left hanging.
      this.#run(batch)
        .catch((error: unknown) => {
          for (const pending of batch) pending.reject(error);
        })
        .finally(() => {
          this.#inFlight -= 1;
          this.#flush();
        });
    }
  }
}
