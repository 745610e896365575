// The notification targets of `npm run bench` (docs/performance.md "Running the benchmarks"): the
// delivery benchmarks run as children, one store at a time, and their JSON line parsed.
//   - bench/delivery-latency.ts --rate 200 --concurrency 32 --payments 2000: completed_at → receipt
//   - bench/delivery-window.ts --window-only --json: one endpoint answering after ~250 ms
// A child is taken from the measured checkout (--gateway-dir), since it starts that checkout's gateway.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runNodeResult } from './children.ts';

export type DeliveryLatency = {
  store: string;
  payments: number;
  delivered: number;
  not_delivered: number;
  p50_ms: number;
  p99_ms: number;
  payments_per_s: number;
};

export type DeliveryWindow = { store: string; bare_per_s: number; window_sustained_per_s: number | undefined };

/** A child's figures, or why there are none. */
export type ChildFigures<T> = { figures: T } | { failure: string };

export const LATENCY_RATE = 200;
export const LATENCY_CONCURRENCY = 32;
export const LATENCY_PAYMENTS = 2000;

async function runChild<T>(
  gatewayDir: string,
  script: string,
  args: string[],
  timeoutMs: number,
  log: (line: string) => void,
): Promise<ChildFigures<T>> {
  const path = join(gatewayDir, 'bench', script);
  if (!existsSync(path)) return { failure: `${path} does not exist` };
  const { code, stdout, stderr } = await runNodeResult([path, ...args], {}, timeoutMs);
  const lines = stdout.trim().split('\n');
  for (const line of lines) if (!line.startsWith('{')) log(`    ${line}`);
  const json = lines.filter((l) => l.startsWith('{')).at(-1);
  if (!json) {
    const why = code === null ? `killed after ${timeoutMs / 1000} s` : `exit ${code}`;
    return { failure: `${script} printed no JSON (${why}): ${stderr.trim().split('\n').at(-1) ?? ''}` };
  }
  return { figures: JSON.parse(json) as T };
}

export function runDeliveryLatency(
  gatewayDir: string,
  store: 'sqlite' | 'postgres',
  log: (line: string) => void,
): Promise<ChildFigures<DeliveryLatency>> {
  const args = ['--store', store, '--rate', `${LATENCY_RATE}`, '--concurrency', `${LATENCY_CONCURRENCY}`];
  log(`  ${store}: delivery-latency.ts ${[...args.slice(2), '--payments', `${LATENCY_PAYMENTS}`].join(' ')}`);
  // 10 s of payments, then up to 120 s of waiting for the last notifications (the script's own cap).
  return runChild(gatewayDir, 'delivery-latency.ts', [...args, '--payments', `${LATENCY_PAYMENTS}`], 240_000, log);
}

export function runDeliveryWindow(
  gatewayDir: string,
  store: 'sqlite' | 'postgres',
  backlog: number,
  log: (line: string) => void,
): Promise<ChildFigures<DeliveryWindow>> {
  log(`  ${store}: delivery-window.ts --window-only --backlog ${backlog}`);
  // The drain is capped at 300 s by the script; a backlog drains in backlog / ~120 s.
  return runChild(
    gatewayDir,
    'delivery-window.ts',
    ['--store', store, '--window-only', '--json', '--backlog', `${backlog}`],
    360_000,
    log,
  );
}
