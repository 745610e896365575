// Faults for the next N calls of an endpoint (POST /__sim/faults). Each call of the endpoint
// takes the first fault queued for it; a fault with a count of 3 serves three calls.
//   timeout         the bank accepts and applies the call but never answers: the socket stays
//                   open until the client gives up or the simulator closes
//   http504         applied, then answered 504 (a gateway that gave up waiting on the backend)
//   http500         not applied, answered 500
//   rateLimit       not applied, answered 429
//   openapi_error:<message>  not applied, answered {"code":"openapi_error","message":…} (status 500 or as given)
//   latency:<ms>    applied and answered normally, <ms> later (real time)
import { endpointNamed, type Endpoint } from './endpoints.ts';

export type Fault =
  | { kind: 'timeout' }
  | { kind: 'http500' }
  | { kind: 'http504' }
  | { kind: 'rateLimit' }
  | { kind: 'openapi_error'; message: string; status: number }
  | { kind: 'latency'; ms: number };

export type FaultSpec = { endpoint: string; fault: string; count?: number; status?: number };
export type QueuedFault = { endpoint: Endpoint; fault: string; remaining: number };

export class FaultSpecError extends Error {}

export function parseFault(text: string, status?: number): Fault {
  if (status !== undefined && (!Number.isInteger(status) || status < 400 || status > 599))
    throw new FaultSpecError('status must be 400–599');
  if (text === 'timeout' || text === 'http500' || text === 'http504' || text === 'rateLimit') return { kind: text };
  const error = /^openapi_error:(.+)$/s.exec(text);
  if (error) return { kind: 'openapi_error', message: error[1]!, status: status ?? 500 };
  const latency = /^latency:(\d{1,7})$/.exec(text);
  if (latency) return { kind: 'latency', ms: Number(latency[1]) };
  throw new FaultSpecError(
    `unknown fault ${JSON.stringify(text)}: ` +
      'timeout, http500, http504, rateLimit, openapi_error:<message>, latency:<ms>',
  );
}

/** The text a fault is shown as in the log and the queue. */
export function faultText(fault: Fault): string {
  if (fault.kind === 'openapi_error') return `openapi_error:${fault.message}`;
  if (fault.kind === 'latency') return `latency:${fault.ms}`;
  return fault.kind;
}

export class FaultPlan {
  readonly #queue: Array<{ endpoint: Endpoint; fault: Fault; remaining: number }> = [];

  add(spec: FaultSpec): void {
    const endpoint = endpointNamed(spec.endpoint);
    if (endpoint === null) throw new FaultSpecError(`unknown endpoint ${JSON.stringify(spec.endpoint)}`);
    const count = spec.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new FaultSpecError('count must be a positive integer');
    this.#queue.push({ endpoint, fault: parseFault(spec.fault, spec.status), remaining: count });
  }

  /** The fault for this call of `endpoint`, if one is queued (and one use of it spent). */
  take(endpoint: Endpoint): Fault | undefined {
    const index = this.#queue.findIndex((q) => q.endpoint === endpoint);
    if (index < 0) return undefined;
    const queued = this.#queue[index]!;
    if (--queued.remaining === 0) this.#queue.splice(index, 1);
    return queued.fault;
  }

  clear(): void {
    this.#queue.length = 0;
  }

  list(): QueuedFault[] {
    return this.#queue.map((q) => ({ endpoint: q.endpoint, fault: faultText(q.fault), remaining: q.remaining }));
  }
}
