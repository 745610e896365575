// The targets table that ends `npm run bench`: each performance target the owners set that this
// machine can judge (docs/performance.md "Running the benchmarks"), its figure from this run, the
// bare baseline from the same run, their ratio and whether the target is met. A target whose
// scenario did not run says so, with the flag that runs it.
import type { ConsolePageResult } from './console-page.ts';
import {
  LATENCY_CONCURRENCY,
  LATENCY_RATE,
  type ChildFigures,
  type DeliveryLatency,
  type DeliveryWindow,
} from './delivery-targets.ts';
import type { ScenarioResult } from './gateway-run.ts';
import { table } from './report.ts';

export type Store = 'sqlite' | 'postgres';
export const STORES: Store[] = ['sqlite', 'postgres'];

export type TargetInputs = {
  connections: number;
  /** Why a store's targets did not run (the flag that runs them), or undefined when they ran. */
  notRun: (store: Store) => string | undefined;
  /** The bare node:http server, mean of its runs before and after the gateways. */
  bare: { rps: number; usPerRequest: number | undefined; p99Ms: number } | undefined;
  initiation: Partial<Record<Store, ScenarioResult>>;
  consolePage: Partial<Record<Store, ConsolePageResult | { failure: string }>>;
  latency: Partial<Record<Store, ChildFigures<DeliveryLatency>>>;
  window: Partial<Record<Store, ChildFigures<DeliveryWindow>>>;
};

/** The goals (docs/performance.md "Running the benchmarks"). */
export const GOALS = {
  initiationCpu: { sqlite: 3.0, postgres: 3.5 },
  initiationRps: { sqlite: 0.4, postgres: 0.35 },
  initiationP99Ms: 10,
  p99Connections: 64,
  consolePageUs: 1000,
  consolePageRows: 50,
  notificationP99Ms: 50,
  windowPerS: 100,
} as const;

type Line = {
  target: string;
  store: string;
  figure: string;
  bare: string;
  ratio: string;
  goal: string;
  verdict: string;
};

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const times = (x: number) => `${x.toFixed(2)}×`;

/** The lines, grouped by target: each target's SQLite line, then its PostgreSQL line. */
export function targetLines(input: TargetInputs): Line[] {
  const perStore = STORES.map((store) => storeLines(input, store));
  return perStore[0]!.flatMap((line, i) => [line, ...perStore.slice(1).map((lines) => lines[i]!)]);
}

/** One store's six lines, always in the same order. */
function storeLines(input: TargetInputs, store: Store): Line[] {
  const lines: Line[] = [];
  const notRun = (target: string, store: Store, goal: string, why: string) =>
    lines.push({ target, store, figure: 'not run', bare: '', ratio: '', goal, verdict: `not run (${why})` });
  const failed = (target: string, store: Store, goal: string, why: string) =>
    lines.push({ target, store, figure: 'failed', bare: '', ratio: '', goal, verdict: `NOT met (${why})` });

  {
    const why = input.notRun(store);
    const init = input.initiation[store];
    const bare = input.bare;
    const cpuGoal = `≤ ${GOALS.initiationCpu[store].toFixed(1)}× bare`;
    const rpsGoal = `≥ ${GOALS.initiationRps[store].toFixed(2)}× bare`;
    const p99Goal = `≤ ${GOALS.initiationP99Ms} ms at ${GOALS.p99Connections} conn.`;
    const cpuTarget = 'CPU per durable initiation, all gateway threads';
    if (why || !init || !bare) {
      const reason = why ?? 'the initiation scenario did not run';
      notRun(cpuTarget, store, cpuGoal, reason);
      notRun('initiation throughput', store, rpsGoal, reason);
      notRun('initiation p99', store, p99Goal, reason);
    } else {
      const us = init.load.serverUsPerRequest;
      if (us === undefined || bare.usPerRequest === undefined) {
        notRun(cpuTarget, store, cpuGoal, 'no process CPU on this OS (/proc)');
      } else {
        const ratio = us / bare.usPerRequest;
        const backend =
          init.backendUsPerRequest === undefined
            ? ''
            : ` (+ PostgreSQL backends ${init.backendUsPerRequest.toFixed(0)} µs)`;
        lines.push({
          target: cpuTarget,
          store,
          figure: `${int(us)} µs${backend}`,
          bare: `${int(bare.usPerRequest)} µs`,
          ratio: times(ratio),
          goal: cpuGoal,
          verdict: verdict(ratio <= GOALS.initiationCpu[store]),
        });
      }
      const rpsRatio = init.load.rps / bare.rps;
      lines.push({
        target: 'initiation throughput',
        store,
        figure: `${int(init.load.rps)}/s`,
        bare: `${int(bare.rps)}/s`,
        ratio: times(rpsRatio),
        goal: rpsGoal,
        verdict: verdict(rpsRatio >= GOALS.initiationRps[store]),
      });
      const p99 = init.load.p99Ms;
      lines.push({
        target: 'initiation p99',
        store,
        figure: `${p99.toFixed(1)} ms`,
        bare: `${bare.p99Ms.toFixed(1)} ms`,
        ratio: bare.p99Ms > 0 ? times(p99 / bare.p99Ms) : '',
        goal: p99Goal,
        verdict:
          input.connections === GOALS.p99Connections
            ? verdict(p99 <= GOALS.initiationP99Ms)
            : `not judged (ran at ${input.connections} conn.; --connections ${GOALS.p99Connections})`,
      });
    }

    const pageTarget = `console payments page (${GOALS.consolePageRows} rows), CPU per GET`;
    const pageGoal = `≤ ${int(GOALS.consolePageUs)} µs`;
    const page = input.consolePage[store];
    if (why || !page) notRun(pageTarget, store, pageGoal, why ?? 'the console page scenario did not run');
    else if (!('gateway' in page)) failed(pageTarget, store, pageGoal, page.failure);
    else {
      const us = page.gateway.serverUsPerRequest;
      const bareUs = page.bare.serverUsPerRequest;
      const backend =
        page.backendUsPerRequest === undefined
          ? ''
          : ` (+ PostgreSQL backends ${page.backendUsPerRequest.toFixed(0)} µs)`;
      const problem =
        page.failure !== undefined
          ? `answer: ${page.failure.replace(/\s+/g, ' ').slice(0, 60)}`
          : page.pageRows !== GOALS.consolePageRows
            ? `the page had ${page.pageRows} rows`
            : undefined;
      lines.push({
        target: pageTarget,
        store: `${store}, ${int(page.rows)} payments`,
        figure: us === undefined ? '?' : `${int(us)} µs${backend}`,
        bare: bareUs === undefined ? '?' : `${int(bareUs)} µs`,
        ratio: us !== undefined && bareUs ? times(us / bareUs) : '',
        goal: pageGoal,
        verdict: problem
          ? `NOT met (${problem})`
          : us === undefined
            ? 'unknown (no /proc)'
            : verdict(us <= GOALS.consolePageUs),
      });
    }

    const latencyTarget = `notification p99 at ${LATENCY_RATE} payments/s, ${LATENCY_CONCURRENCY} clients`;
    const latencyGoal = `≤ ${GOALS.notificationP99Ms} ms`;
    const latency = input.latency[store];
    if (why || !latency) notRun(latencyTarget, store, latencyGoal, why ?? 'delivery-latency.ts did not run');
    else if ('failure' in latency) failed(latencyTarget, store, latencyGoal, latency.failure);
    else {
      const f = latency.figures;
      // The target is at 200 payments/s: a run that could not start them that fast did not reach its condition.
      const slow = f.payments_per_s < 0.95 * LATENCY_RATE;
      lines.push({
        target: latencyTarget,
        store,
        figure: `${f.p99_ms} ms (p50 ${f.p50_ms}; ${f.payments_per_s}/s achieved)`,
        bare: '—',
        ratio: '',
        goal: latencyGoal,
        verdict:
          f.not_delivered > 0
            ? `NOT met (${f.not_delivered} not delivered)`
            : slow
              ? `NOT met (only ${f.payments_per_s} payments/s started)`
              : verdict(f.p99_ms <= GOALS.notificationP99Ms),
      });
    }

    const windowTarget = "one merchant's notifications, endpoint answering in ~250 ms";
    const windowGoal = `≥ ${GOALS.windowPerS}/s sustained`;
    const window = input.window[store];
    if (why || !window) notRun(windowTarget, store, windowGoal, why ?? 'delivery-window.ts did not run');
    else if ('failure' in window) failed(windowTarget, store, windowGoal, window.failure);
    else {
      const f = window.figures;
      const rate = f.window_sustained_per_s;
      lines.push({
        target: windowTarget,
        store,
        figure: rate === undefined ? '?' : `${int(rate)}/s`,
        bare: `${int(f.bare_per_s)}/s`,
        ratio: rate !== undefined && f.bare_per_s > 0 ? times(rate / f.bare_per_s) : '',
        goal: windowGoal,
        verdict: rate === undefined ? 'NOT met (no window run)' : verdict(rate >= GOALS.windowPerS),
      });
    }
  }
  return lines;
}

export function targetsTable(lines: Line[]): string {
  return table(
    ['target', 'store', 'this run', 'bare, same run', 'ratio', 'goal', 'verdict'],
    lines.map((l) => [l.target, l.store, l.figure, l.bare, l.ratio, l.goal, l.verdict]),
    [false, false, true, true, true, false, false],
  );
}
