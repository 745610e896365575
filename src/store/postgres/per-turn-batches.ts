// Collects the requests of one event-loop turn and hands them to `run` in batches of at most
// `maxBatch`, each on its own pooled connection. What the PostgreSQL initiation INSERT, the
// transaction lookups and the completion sets (store/postgres/completion-batches.ts, with its own choice of
// which completions may leave together) share: one statement for a turn's worth of rows instead
// of one per request.
//
// At most `maxInFlight` batches run at once; requests arriving meanwhile wait and leave together
// when a batch finishes. An idle store therefore sees each request at once, and a busy one sees
// fewer, larger statements: every statement is a socket write that wakes a PostgreSQL backend
// and (for the INSERT) a commit that waits for its WAL flush, and on this 2-core machine those
// writes were a fifth of the HTTP thread's time with a batch per turn (docs/performance.md).
export type Pending<I, O> = { input: I; resolve: (value: O) => void; reject: (error: unknown) => void };

/**
 * Chooses the next batch from the waiting requests (at most `maxBatch`), removing what it takes
 * from `queue`; an empty batch means nothing may leave until a running batch finishes. The
 * default takes the oldest `maxBatch`.
 */
export type SelectBatch<I, O> = (queue: Array<Pending<I, O>>, maxBatch: number) => Array<Pending<I, O>>;

const oldestFirst = <I, O>(queue: Array<Pending<I, O>>, maxBatch: number) => queue.splice(0, maxBatch);

export class PerTurnBatches<I, O> {
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  readonly #run: (batch: Array<Pending<I, O>>) => Promise<void>;
  readonly #select: SelectBatch<I, O>;
  #queue: Array<Pending<I, O>> = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(
    maxBatch: number,
    maxInFlight: number,
    run: (batch: Array<Pending<I, O>>) => Promise<void>,
    select: SelectBatch<I, O> = oldestFirst,
  ) {
    this.#maxBatch = maxBatch;
    this.#maxInFlight = maxInFlight;
    this.#run = run;
    this.#select = select;
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
      const batch = this.#select(this.#queue, this.#maxBatch);
      if (batch.length === 0) return;
      this.#inFlight += 1;
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
