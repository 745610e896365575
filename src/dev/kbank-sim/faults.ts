// Faults for the next N calls of an endpoint (POST /__sim/faults). Each call of the endpoint
// takes the first fault queued for it; a fault with a count of 3 serves three calls.
//   timeout         the bank accepts and applies the call but never answers: the socket stays
//                   open until the client gives up or the simulator closes
//   http504         applied, then answered 504 (a gateway that gave up waiting on the backend)
//   http500         not applied, answered 500
//   rateLimit       not applied, answered 429
//   openapi_error:<message>  not applied, answered {"code":"openapi_error","message":…} (status 500 or as given)
//   latency:<ms>    applied and answered normally, <ms> later (real time)
import { FaultQueue, FaultSpecError, type QueuedFault as SharedQueuedFault } from '../sim-kit/fault-queue.ts';
import { endpointNamed, type Endpoint } from './endpoints.ts';

export type Fault =
  | { kind: 'timeout' }
  | { kind: 'http500' }
  | { kind: 'http504' }
  | { kind: 'rateLimit' }
  | { kind: 'openapi_error'; message: string; status: number }
  | { kind: 'latency'; ms: number };

export type FaultSpec = { endpoint: string; fault: string; count?: number; status?: number };
export type QueuedFault = SharedQueuedFault<Endpoint>;
export { FaultSpecError };

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

/** KBank's faults on the shared queue (sim-kit/fault-queue.ts). */
export class FaultPlan extends FaultQueue<Endpoint, Fault> {
  constructor() {
    super({ endpoint: endpointNamed, parse: (text, _endpoint, status) => parseFault(text, status), text: faultText });
  }
}
