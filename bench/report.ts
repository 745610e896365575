// Plain-text tables for the benchmark's output (and for pasting into docs/performance.md).
import type { LoadResult } from './load.ts';
import type { MicroResult } from './commit-micro.ts';

export type Row = { scenario: string; load: LoadResult };

export function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);

/** req/s, latency, failures and the ratio to the bare node:http baseline measured in the same run. */
export function httpTable(
  rows: Row[],
  baselineRps: number,
  baselineUsPerRequest: number | undefined,
  baselineMainUs?: number,
): string {
  const cores = (x: number | undefined) => (x === undefined ? '?' : x.toFixed(2));
  return table(
    [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'non-2xx',
      'errors',
      'vs bare',
      'srv cores',
      'gen cores',
      'srv µs/req',
      'CPU vs bare',
      'main µs/req',
      'main vs bare',
    ],
    rows.map(({ scenario, load }) => [
      scenario,
      int(load.rps),
      ms(load.p50Ms),
      ms(load.p99Ms),
      ms(load.maxMs),
      int(load.non2xx),
      int(load.errors),
      baselineRps > 0 ? `${(load.rps / baselineRps).toFixed(2)}×` : '-',
      cores(load.serverCores),
      cores(load.generatorCores),
      load.serverUsPerRequest === undefined ? '?' : load.serverUsPerRequest.toFixed(0),
      load.serverUsPerRequest !== undefined && baselineUsPerRequest
        ? `${(load.serverUsPerRequest / baselineUsPerRequest).toFixed(1)}×`
        : '-',
      load.mainThreadUsPerRequest === undefined ? '?' : load.mainThreadUsPerRequest.toFixed(0),
      load.mainThreadUsPerRequest !== undefined && baselineMainUs
        ? `${(load.mainThreadUsPerRequest / baselineMainUs).toFixed(1)}×`
        : '-',
    ]),
    [false, true, true, true, true, true, true, true, true, true, true, true, true, true],
  );
}

export function microTable(results: Array<MicroResult & { minRowsPerS: number; maxRowsPerS: number }>): string {
  const base = results.find((r) => r.name === 'raw-1')?.rowsPerS ?? 0;
  return table(
    ['phase', 'rows/s', 'range/s', 'commits', 'rows/commit', 'stored', 'vs raw-1', 'what'],
    results.map((r) => [
      r.name,
      int(r.rowsPerS),
      `${int(r.minRowsPerS)}–${int(r.maxRowsPerS)}`,
      int(r.commits),
      (r.rows / Math.max(1, r.commits)).toFixed(1),
      r.storedRows === r.rows ? 'all' : `${r.storedRows}/${r.rows}!`,
      base > 0 ? `${(r.rowsPerS / base).toFixed(2)}×` : '-',
      r.what,
    ]),
    [false, true, true, true, true, true, true, false],
  );
}
