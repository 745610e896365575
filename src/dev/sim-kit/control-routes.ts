// The /__sim routes every bank simulator answers alike (docs/connectors/kbank-sim.md,
// docs/connectors/scb-sim.md): the clock, the fault queue, the state and the log, the route list
// and the refusal of an unknown route. A simulator's own routes (paying, callbacks or
// confirmations) are tried first; a SimControlError from either is a 4xx {"error": …}.
import type { ClockControl, FaultControl } from './common-control.ts';
import { field, required, SimControlError } from './control-fields.ts';

export type ControlAnswer = { status: number; body: unknown; contentType?: string };

/** What the common routes call: the clock, the faults, and the state (with its faults) and log. */
export type CommonControl<S> = ClockControl &
  FaultControl<S, unknown> & { state(): { faults: unknown }; log(): unknown };

export type ControlRouter<S> = {
  /** `METHOD /path` for GET /__sim and for an unknown route. */
  routes: readonly string[];
  /** The simulator's own routes; undefined when `at` ("METHOD /__sim/…") is none of them. */
  own(at: string, path: string, body: Record<string, unknown>): Promise<ControlAnswer | undefined>;
  /** Reads one fault of POST /__sim/faults (a body, or one of its `faults`). */
  faultSpec(value: unknown): S;
};

/** Routes one /__sim request; `body` is the parsed JSON object ({} when empty). */
export async function answerControl<S>(
  control: CommonControl<S>,
  router: ControlRouter<S>,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<ControlAnswer> {
  try {
    const at = `${method} ${path.replace(/\/$/, '')}`;
    return (await router.own(at, path, body)) ?? commonRoute(control, router, at, method, path, body);
  } catch (error) {
    if (error instanceof SimControlError) return { status: error.status, body: { error: error.message } };
    throw error;
  }
}

function commonRoute<S>(
  control: CommonControl<S>,
  router: ControlRouter<S>,
  at: string,
  method: string,
  path: string,
  body: Record<string, unknown>,
): ControlAnswer {
  switch (at) {
    case 'GET /__sim':
      return { status: 200, body: { routes: router.routes } };
    case 'GET /__sim/clock':
      return { status: 200, body: control.clock() };
    case 'POST /__sim/clock': {
      const now = body.now;
      const advanceMs = field<number>(body, 'advanceMs', 'number');
      if ((now === undefined) === (advanceMs === undefined))
        throw new SimControlError(400, 'give exactly one of now and advanceMs');
      if (advanceMs !== undefined) return { status: 200, body: control.advance(advanceMs) };
      if (typeof now !== 'string' && typeof now !== 'number')
        throw new SimControlError(400, 'now must be ISO 8601 text with a zone or Unix ms');
      return { status: 200, body: control.setClock(now) };
    }
    case 'GET /__sim/faults':
      return { status: 200, body: { faults: control.state().faults } };
    case 'POST /__sim/faults': {
      const specs = Array.isArray(body.faults) ? body.faults : [body];
      return { status: 200, body: { faults: control.faults(specs.map(router.faultSpec)) } };
    }
    case 'DELETE /__sim/faults':
      control.clearFaults();
      return { status: 200, body: { faults: [] } };
    case 'GET /__sim/state':
      return { status: 200, body: control.state() };
    case 'GET /__sim/log':
      return { status: 200, body: control.log() };
    default:
      return { status: 404, body: { error: `no control route ${method} ${path}`, routes: router.routes } };
  }
}

/** A fault's endpoint, fault and count, and the other whole numbers named (KBank's status). */
export function readFaultSpec<N extends string>(
  value: unknown,
  numbers: readonly N[],
): { endpoint: string; fault: string } & Partial<Record<N, number>> {
  if (value === null || typeof value !== 'object') throw new SimControlError(400, 'a fault is an object');
  const spec = value as Record<string, unknown>;
  const read: Partial<Record<N, number>> = {};
  for (const name of numbers) {
    const number = field<number>(spec, name, 'number');
    if (number !== undefined) read[name] = number;
  }
  return {
    endpoint: required(field<string>(spec, 'endpoint', 'string'), 'endpoint'),
    fault: required(field<string>(spec, 'fault', 'string'), 'fault'),
    ...read,
  };
}
