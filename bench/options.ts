// Command-line flags (and BENCH_* environment fallbacks) for `npm run bench`.
// Every knob has a hard upper bound so a typo cannot start an hour-long run.
import { parseArgs } from 'node:util';

export type BenchOptions = {
  /** Measured seconds per HTTP scenario. */
  durationS: number;
  /** Unmeasured seconds before each server's first scenario (JIT warm-up, SQLite cache). */
  warmupS: number;
  /** Concurrent keep-alive connections the load generator holds open. */
  connections: number;
  /** Seconds per SQLite commit phase per round (3 interleaved rounds). */
  microS: number;
  postgres: boolean;
  /** Start the gateway under `node --cpu-prof` and summarise where its CPU time went. */
  profile: boolean;
  /** Skip the Fastify-only baseline (it only exists to split framework cost from gateway cost). */
  skipFastify: boolean;
  /** Only the SQLite commit micro-benchmark. */
  microOnly: boolean;
  /** Each store's gateway runs only the unique-initiation scenario (quick iterations on the hot path). */
  initiationOnly: boolean;
  /**
   * Each store's gateway runs only the unique-initiation and the mixed scenarios (their ratio has a goal:
   * docs/performance.md "Current figures").
   */
  mixedOnly: boolean;
  /** When > 0: one more initiation run per store over this many existing transactions. */
  existingRows: number;
  /** When > 0: one more initiation run per store while this many notifications to a dead endpoint are due. */
  deadBacklog: number;
  /** The checkout whose gateway is measured (default '.'), e.g. a `git worktree` of main for "before". */
  gatewayDir: string;
  /** One more SQLite run with the KBank connector on kbank-sim: initiation, and the pages' first views. */
  kbank: boolean;
  /**
   * Only what the targets table needs (bench/targets.ts): bare node:http, unique initiation per store, the
   * console page, the delivery children; shorter defaults. No micro-benchmark, no Fastify.
   */
  targetsOnly: boolean;
  /** Payments seeded for the console page target (bench/console-page.ts). */
  consoleRows: number;
  /** Notifications due for the delivery window target (bench/delivery-window.ts --backlog). */
  windowBacklog: number;
};

const USAGE = `usage: npm run bench -- [--duration S] [--warmup S] [--connections N] [--micro S]
                          [--postgres] [--profile] [--skip-fastify] [--micro-only] [--initiation-only]
                          [--mixed-only]
                          [--existing-rows N] [--dead-backlog N] [--gateway-dir DIR] [--kbank]
                          [--targets-only] [--console-rows N] [--window-backlog N]
  --duration S      measured seconds per HTTP scenario (default 10, 5 with --targets-only; env BENCH_DURATION,
                    max 120)
  --warmup S        warm-up seconds per server (default 2, 1 with --targets-only; env BENCH_WARMUP, max 30)
  --connections N   concurrent connections (default 64, env BENCH_CONNECTIONS, max 4096)
  --micro S         seconds per SQLite commit phase and round (3 rounds; default 1, env BENCH_MICRO, max 30)
  --postgres        also run the gateway on PostgreSQL (fresh database on 127.0.0.1:5432, dropped after)
  --profile         run the SQLite gateway under --cpu-prof and print where its time went
  --skip-fastify    skip the bare Fastify baseline
  --micro-only      run only the SQLite commit micro-benchmark
  --initiation-only run only the unique-initiation scenario on each store (quick iterations)
  --mixed-only      run only the unique-initiation and the mixed scenarios on each store
  --existing-rows N also measure initiation over N existing transactions per store (e.g. 1000000;
                    env BENCH_EXISTING_ROWS, default 0 = skip, max 5000000)
  --dead-backlog N  also measure initiation while N notifications to a dead endpoint are due
                    (e.g. 20000; env BENCH_DEAD_BACKLOG, default 0 = skip, max 200000)
  --gateway-dir DIR measure the gateway of another checkout (e.g. git worktree add /tmp/before main;
                    env BENCH_GATEWAY_DIR; it must have node_modules and the same schema)
  --kbank           also run the SQLite gateway with the KBank connector on a local kbank-sim: initiation
                    (no bank call on its path) and the hosted page's first views (each asks the bank for
                    the payment's QR), then repeat views (env BENCH_KBANK=1)
  --targets-only    only what the closing targets table needs, with short defaults: bare node:http before and
                    after, unique initiation per store, the console page, delivery-latency.ts and
                    delivery-window.ts (no micro-benchmark, no Fastify, no other scenario)
  --console-rows N  payments seeded for the console page target (default 20000, 5000 with --targets-only;
                    env BENCH_CONSOLE_ROWS, 100 to 5000000)
  --window-backlog N notifications for the delivery window target (default 3000, 1500 with --targets-only;
                    env BENCH_WINDOW_BACKLOG, 200 to 100000)`;

function bounded(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max} (got "${raw}")\n${USAGE}`);
  }
  return value;
}

export function parseBenchOptions(argv: string[], env: Record<string, string | undefined>): BenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        micro: { type: 'string' },
        postgres: { type: 'boolean' },
        profile: { type: 'boolean' },
        'skip-fastify': { type: 'boolean' },
        'micro-only': { type: 'boolean' },
        'initiation-only': { type: 'boolean' },
        'mixed-only': { type: 'boolean' },
        'existing-rows': { type: 'string' },
        'dead-backlog': { type: 'string' },
        'gateway-dir': { type: 'string' },
        kbank: { type: 'boolean' },
        'targets-only': { type: 'boolean' },
        'console-rows': { type: 'string' },
        'window-backlog': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const targetsOnly = values['targets-only'] ?? false;
  return {
    durationS: bounded('--duration', values.duration ?? env.BENCH_DURATION, targetsOnly ? 5 : 10, 1, 120),
    warmupS: bounded('--warmup', values.warmup ?? env.BENCH_WARMUP, targetsOnly ? 1 : 2, 0, 30),
    connections: Math.trunc(bounded('--connections', values.connections ?? env.BENCH_CONNECTIONS, 64, 1, 4096)),
    microS: bounded('--micro', values.micro ?? env.BENCH_MICRO, 1, 0.5, 30),
    postgres: values.postgres ?? false,
    profile: values.profile ?? false,
    skipFastify: values['skip-fastify'] ?? false,
    microOnly: values['micro-only'] ?? false,
    initiationOnly: values['initiation-only'] ?? false,
    mixedOnly: values['mixed-only'] ?? false,
    existingRows: Math.trunc(
      bounded('--existing-rows', values['existing-rows'] ?? env.BENCH_EXISTING_ROWS, 0, 0, 5_000_000),
    ),
    deadBacklog: Math.trunc(bounded('--dead-backlog', values['dead-backlog'] ?? env.BENCH_DEAD_BACKLOG, 0, 0, 200_000)),
    gatewayDir: values['gateway-dir'] ?? env.BENCH_GATEWAY_DIR ?? '.',
    kbank: values.kbank ?? env.BENCH_KBANK === '1',
    targetsOnly,
    consoleRows: Math.trunc(
      bounded(
        '--console-rows',
        values['console-rows'] ?? env.BENCH_CONSOLE_ROWS,
        targetsOnly ? 5000 : 20_000,
        100,
        5_000_000,
      ),
    ),
    windowBacklog: Math.trunc(
      bounded(
        '--window-backlog',
        values['window-backlog'] ?? env.BENCH_WINDOW_BACKLOG,
        targetsOnly ? 1500 : 3000,
        200,
        100_000,
      ),
    ),
  };
}

/** A hard wall-clock limit for the whole run: generous, but the run always ends by itself. */
export function timeLimitS(options: BenchOptions): number {
  const stores = options.postgres ? 2 : 1;
  const bigRuns = (options.existingRows > 0 ? stores : 0) + (options.deadBacklog > 0 ? stores : 0);
  if (options.microOnly) return Math.ceil(120 + 24 * options.microS);
  // The targets: per store the console page (seeding, two servers), delivery-latency.ts (10 s of
  // payments, up to 120 s of waiting, its own cap) and delivery-window.ts (a drain of ~120/s).
  const targetsS =
    stores *
    (60 +
      (20 * options.consoleRows) / 1_000_000 +
      2 * (options.durationS + 2 * options.warmupS) +
      150 +
      60 +
      options.windowBacklog / 50);
  if (options.targetsOnly)
    return Math.ceil(120 + targetsS + 1.5 * ((2 + stores) * options.durationS + (3 + stores) * options.warmupS));
  const httpRuns =
    3 +
    (options.skipFastify ? 0 : 1) +
    (options.initiationOnly ? 1 : options.mixedOnly ? 2 : 5) * stores +
    bigRuns +
    (options.profile ? 1 : 0) +
    (options.kbank ? 3 : 0);
  const warmups = 4 + (options.postgres ? 1 : 0) + bigRuns + (options.profile ? 1 : 0) + (options.kbank ? 1 : 0);
  // Seeding: budget 20 s per million rows and store.
  const seedingS = (bigRuns * 20 * options.existingRows) / 1_000_000;
  return Math.ceil(
    120 + 24 * options.microS + seedingS + targetsS + 1.5 * (httpRuns * options.durationS + warmups * options.warmupS),
  );
}
