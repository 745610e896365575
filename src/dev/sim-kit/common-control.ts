// The control operations every bank simulator has (docs/connectors/kbank-sim.md,
// docs/connectors/scb-sim.md): its clock, read and set, and its queued faults. Each simulator
// spreads these into its own SimControl beside the operations that are its bank's own.
import { bangkokIso, toInstant, type SimClock } from './clock.ts';
import { SimControlError } from './control-fields.ts';
import { FaultSpecError } from './fault-queue.ts';

export type ClockView = { now: string; unixMs: number; ticking: boolean };

export type ClockControl = {
  clock(): ClockView;
  setClock(at: string | number | Date): ClockView;
  advance(ms: number): ClockView;
};

export function clockControl(clock: SimClock): ClockControl {
  function clockView(): ClockView {
    const now = clock.now();
    return { now: bangkokIso(now), unixMs: now, ticking: clock.ticking };
  }
  return {
    clock: clockView,
    setClock(at) {
      const instant = toInstant(at);
      if (instant === null) throw new SimControlError(400, 'now must be ISO 8601 with a zone, Unix ms or a Date');
      clock.set(instant);
      return clockView();
    },
    advance(ms) {
      if (!Number.isSafeInteger(ms)) throw new SimControlError(400, 'advanceMs must be an integer');
      clock.advance(ms);
      return clockView();
    },
  };
}

export type FaultControl<S, Q> = {
  faults(spec: S | S[]): Q[];
  clearFaults(): void;
};

/** Queues faults (a spec the queue refuses is a 400) and clears them. */
export function faultControl<S, Q>(queue: { add(spec: S): void; list(): Q[]; clear(): void }): FaultControl<S, Q> {
  return {
    faults(spec) {
      try {
        for (const one of Array.isArray(spec) ? spec : [spec]) queue.add(one);
      } catch (error) {
        if (error instanceof FaultSpecError) throw new SimControlError(400, error.message);
        throw error;
      }
      return queue.list();
    },
    clearFaults() {
      queue.clear();
    },
  };
}
