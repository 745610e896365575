// Drives one scenario with autocannon (pure JS) in this process: fixed connections, fixed
// duration, keep-alive, no pipelining. `nextBody` builds each request body (unique trackids), `nextPath` each GET's
// path; `onResponse` sees every answer (for the accounting check). Only 127.0.0.1 is ever targeted.
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { mainThreadCpuSeconds, ownCpuSeconds, processCpuSeconds } from './cpu-usage.ts';

export type LoadSpec = {
  url: string;
  path: string;
  connections: number;
  durationS: number;
  /**
   * A fixed body, a function called once per request, or (mixed load) a function choosing each
   * request's path and body, with a tag handed back to `onResponse` with that request's answer.
   */
  body?: string | (() => string) | (() => NextRequest);
  /** GET instead of POST (no body); `nextPath`, if given, chooses each request's path and query. */
  method?: 'GET' | 'POST';
  nextPath?: () => string;
  /** Extra headers on every GET (e.g. a console session cookie). */
  headers?: Record<string, string>;
  onResponse?: (status: number, body: string, tag: string | undefined) => void;
  /** The server's process id, to report its CPU use during the run. */
  serverPid?: number | undefined;
  /** Requests per second over all connections (fixed-rate load); as fast as answers come otherwise. */
  overallRate?: number;
};

export type NextRequest = { path: string; body: string; tag: string };

/** autocannon's per-connection context: with pipelining 1 it holds the tag of the one request in flight. */
type ConnectionContext = { tag?: string };

export type LoadResult = {
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** p99 of 2xx answers only (under load shedding the 503s are fast and would hide the rest). */
  p99Ms2xx: number;
  /** The slowest answer. */
  maxMs: number;
  non2xx: number;
  /** Socket errors and timeouts (no HTTP answer at all). */
  errors: number;
  statusCodes: Record<string, number>;
  /** Server CPU during the run in cores (1.0 = one core busy all the time); undefined if unknown. */
  serverCores: number | undefined;
  /** The load generator's (this process's) CPU in cores. */
  generatorCores: number;
  /** Server CPU microseconds per answered request (all threads). */
  serverUsPerRequest: number | undefined;
  /** CPU microseconds per answered request of the server's main thread alone (the HTTP thread). */
  mainThreadUsPerRequest: number | undefined;
};

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.path, spec.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`the benchmark only targets 127.0.0.1 (got ${url.hostname})`);
  const nextBody = spec.body ?? '';
  const nextPath = spec.nextPath;
  const onResponse = spec.onResponse;
  const request: autocannon.Request =
    spec.method === 'GET'
      ? {
          method: 'GET',
          path: url.pathname + url.search,
          ...(spec.headers && { headers: spec.headers }),
          ...(nextPath && { setupRequest: (req: autocannon.Request) => ({ ...req, path: nextPath() }) }),
          ...(onResponse && { onResponse: (status: number, body: string) => onResponse(status, body, undefined) }),
        }
      : {
          method: 'POST',
          path: url.pathname,
          headers: { 'content-type': 'application/json' },
          ...(typeof nextBody === 'string'
            ? { body: nextBody }
            : {
                setupRequest: (req: autocannon.Request, context: ConnectionContext) => {
                  const next = nextBody();
                  if (typeof next === 'string') return { ...req, body: next };
                  context.tag = next.tag;
                  return { ...req, path: next.path, body: next.body };
                },
              }),
          ...(onResponse && {
            onResponse: (status: number, body: string, context: ConnectionContext) =>
              onResponse(status, body, context.tag),
          }),
        };
  // autocannon's own latency histogram has 1 ms resolution; keep ours in microseconds.
  const latencyUs = createHistogram();
  const latency2xxUs = createHistogram();
  const serverCpuBefore = spec.serverPid === undefined ? undefined : processCpuSeconds(spec.serverPid);
  const mainCpuBefore = spec.serverPid === undefined ? undefined : mainThreadCpuSeconds(spec.serverPid);
  const ownCpuBefore = ownCpuSeconds();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: url.origin,
        connections: spec.connections,
        duration: spec.durationS,
        pipelining: 1,
        timeout: 10,
        requests: [request],
        ...(spec.overallRate && { overallRate: spec.overallRate }),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      const us = Math.max(1, Math.round(ms * 1000));
      latencyUs.record(us);
      if (status >= 200 && status < 300) latency2xxUs.record(us);
    });
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = Number((stat as { count: number | string }).count);
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const serverCpuAfter = spec.serverPid === undefined ? undefined : processCpuSeconds(spec.serverPid);
  const serverCpu =
    serverCpuBefore !== undefined && serverCpuAfter !== undefined ? serverCpuAfter - serverCpuBefore : undefined;
  const mainCpuAfter = spec.serverPid === undefined ? undefined : mainThreadCpuSeconds(spec.serverPid);
  const mainCpu = mainCpuBefore !== undefined && mainCpuAfter !== undefined ? mainCpuAfter - mainCpuBefore : undefined;
  return {
    requests,
    durationS: result.duration,
    rps: requests / result.duration,
    p50Ms: latencyUs.count > 0 ? latencyUs.percentile(50) / 1000 : 0,
    p99Ms: latencyUs.count > 0 ? latencyUs.percentile(99) / 1000 : 0,
    p99Ms2xx: latency2xxUs.count > 0 ? latency2xxUs.percentile(99) / 1000 : 0,
    maxMs: latencyUs.count > 0 ? latencyUs.max / 1000 : 0,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    serverCores: serverCpu === undefined ? undefined : serverCpu / result.duration,
    generatorCores: (ownCpuSeconds() - ownCpuBefore) / result.duration,
    serverUsPerRequest: serverCpu === undefined || requests === 0 ? undefined : (serverCpu * 1e6) / requests,
    mainThreadUsPerRequest: mainCpu === undefined || requests === 0 ? undefined : (mainCpu * 1e6) / requests,
  };
}
