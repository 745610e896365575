// Faults for the next N calls of an endpoint (POST /__sim/faults; docs/connectors/scb-sim.md
// "Faults"), on the shared queue (sim-kit/fault-queue.ts).
// The bank's endpoints (token, createV1, createV2, inquiry, slip, or the path):
//   down            not applied, answered 503 9900 (SCB unavailable / maintenance)
//   hang            not applied, never answered: the socket stays open until the client gives up
//   timeout         applied (a create makes its QR), never answered
//   answerLost      applied, then the connection is dropped without an answer
//   http504         applied, then answered 504 9900
//   http500         not applied, answered 500 9700
//   latency:<ms>    applied and answered normally, <ms> later (real time)
// The bank's outgoing call, endpoint "confirmation" (the next N payments' confirmations):
//   drop, delay:<ms>, duplicate:<n>   as the confirmation modes (confirmations.ts)
import { FaultQueue, FaultSpecError } from '../sim-kit/fault-queue.ts';
import { parseConfirmationMode, ConfirmationModeError, type ConfirmationMode } from './confirmations.ts';
import { endpointNamed, type Endpoint } from './endpoints.ts';

export type FaultEndpoint = Endpoint | 'confirmation';

export type Fault =
  | { kind: 'down' | 'hang' | 'timeout' | 'answerLost' | 'http504' | 'http500' }
  | { kind: 'latency'; ms: number }
  | { kind: 'confirmation'; mode: ConfirmationMode; text: string };

const SIMPLE = ['down', 'hang', 'timeout', 'answerLost', 'http504', 'http500'] as const;

function parseFault(text: string, endpoint: FaultEndpoint): Fault {
  if (endpoint === 'confirmation') {
    try {
      const mode = parseConfirmationMode(text);
      if (mode.kind !== 'normal') return { kind: 'confirmation', mode, text };
    } catch (error) {
      if (!(error instanceof ConfirmationModeError)) throw error;
    }
    throw new FaultSpecError(`unknown confirmation fault ${JSON.stringify(text)}: drop, delay:<ms>, duplicate:<n>`);
  }
  for (const kind of SIMPLE) if (text === kind) return { kind };
  const latency = /^latency:(\d{1,7})$/.exec(text);
  if (latency) return { kind: 'latency', ms: Number(latency[1]) };
  throw new FaultSpecError(`unknown fault ${JSON.stringify(text)}: ${SIMPLE.join(', ')}, latency:<ms>`);
}

export function faultText(fault: Fault): string {
  if (fault.kind === 'latency') return `latency:${fault.ms}`;
  if (fault.kind === 'confirmation') return fault.text;
  return fault.kind;
}

export class FaultPlan extends FaultQueue<FaultEndpoint, Fault> {
  constructor() {
    super({
      endpoint: (text) => (text === 'confirmation' ? 'confirmation' : endpointNamed(text)),
      parse: (text, endpoint) => parseFault(text, endpoint),
      text: faultText,
    });
  }
}

export { FaultSpecError };
