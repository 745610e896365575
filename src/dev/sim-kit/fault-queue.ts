// Faults for the next N calls of an endpoint (POST /__sim/faults), shared by the bank
// simulators: each call of an endpoint takes the first fault queued for it; a fault with a count
// of 3 serves three calls. What the endpoints and the faults are is each simulator's own.
export type QueuedFault<E extends string> = { endpoint: E; fault: string; remaining: number };

export class FaultSpecError extends Error {}

export type FaultGrammar<E extends string, F> = {
  /** The endpoint a name or path means, or null. */
  endpoint(text: string): E | null;
  /** The fault a text means for that endpoint; throws FaultSpecError otherwise. */
  parse(text: string, endpoint: E, status?: number): F;
  /** The text a fault is shown as in the log and the queue. */
  text(fault: F): string;
};

export class FaultQueue<E extends string, F> {
  readonly #grammar: FaultGrammar<E, F>;
  readonly #queue: Array<{ endpoint: E; fault: F; remaining: number }> = [];

  constructor(grammar: FaultGrammar<E, F>) {
    this.#grammar = grammar;
  }

  add(spec: { endpoint: string; fault: string; count?: number; status?: number }): void {
    const endpoint = this.#grammar.endpoint(spec.endpoint);
    if (endpoint === null) throw new FaultSpecError(`unknown endpoint ${JSON.stringify(spec.endpoint)}`);
    const count = spec.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new FaultSpecError('count must be a positive integer');
    this.#queue.push({ endpoint, fault: this.#grammar.parse(spec.fault, endpoint, spec.status), remaining: count });
  }

  /** The fault for this call of `endpoint`, if one is queued (and one use of it spent). */
  take(endpoint: E): F | undefined {
    const index = this.#queue.findIndex((q) => q.endpoint === endpoint);
    if (index < 0) return undefined;
    const queued = this.#queue[index]!;
    if (--queued.remaining === 0) this.#queue.splice(index, 1);
    return queued.fault;
  }

  clear(): void {
    this.#queue.length = 0;
  }

  list(): Array<QueuedFault<E>> {
    return this.#queue.map((q) => ({
      endpoint: q.endpoint,
      fault: this.#grammar.text(q.fault),
      remaining: q.remaining,
    }));
  }
}
