// The options every bank simulator takes (docs/connectors/kbank-sim.md, scb-sim.md "Options"):
// where it listens, the seed of its ids and credentials, and its clock. Each simulator adds its
// bank's own and resolves them all in its config.ts.

export type SimServerOptions = {
  /** Loopback by default. */
  host?: string;
  /** 0 (default): an ephemeral port. */
  port?: number;
  /** Seeds every generated id and credential (default: the simulator's name, "kbank-sim", "scb-sim"). */
  seed?: string;
  /** Where the clock starts (default 2026-01-05T10:00:00+07:00, a Monday morning in Bangkok). */
  now?: string | number | Date;
  /** false (default): the clock stands still until moved; true: it follows real time from where it was set. */
  tickingClock?: boolean;
};

/** The options above resolved, as each simulator's SimConfig holds them. */
export type SimServerConfig = { host: string; port: number; seed: string; start: number; tickingClock: boolean };

export const DEFAULT_START = '2026-01-05T10:00:00+07:00';
