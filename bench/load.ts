// Drives one scenario with autocannon (pure JS) in this process: fixed connections, fixed
// duration, keep-alive, no pipelining. POST bodies or GET paths may be built per request (unique trackids, cycling page ids);
// `onResponse` sees every answer (for the accounting check). Only 127.0.0.1 is ever targeted.
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { ownCpuSeconds, processCpuSeconds } from './cpu-usage.ts';

export type LoadSpec = {
  url: string;
  /** The path of every request, or a function called once per request (e.g. cycling page ids). */
  path: string | (() => string);
  connections: number;
  durationS: number;
  /** POST (the default) sends `body`; GET sends none. */
  method?: 'GET' | 'POST';
  /** A fixed body, or a function called once per request; ignored for GET. */
  body?: string | (() => string);
  onResponse?: (status: number, body: string) => void;
  /** The server's process id, to report its CPU use during the run. */
  serverPid?: number | undefined;
};

export type LoadResult = {
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Socket errors and timeouts (no HTTP answer at all). */
  errors: number;
  statusCodes: Record<string, number>;
  /** Server CPU during the run in cores (1.0 = one core busy all the time); undefined if unknown. */
  serverCores: number | undefined;
  /** The load generator's (this process's) CPU in cores. */
  generatorCores: number;
  /** Server CPU microseconds per answered request. */
  serverUsPerRequest: number | undefined;
};

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const nextPath = spec.path;
  const url = new URL(typeof nextPath === 'string' ? nextPath : nextPath(), spec.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`the benchmark only targets 127.0.0.1 (got ${url.hostname})`);
  const onResponse = spec.onResponse;
  const request: autocannon.Request =
    spec.method === 'GET'
      ? {
          method: 'GET',
          path: url.pathname + url.search,
          ...(typeof nextPath !== 'string' && { setupRequest: (req: autocannon.Request) => ({ ...req, path: nextPath() }) }),
        }
      : postRequest(url.pathname, spec.body ?? '');
  if (onResponse) request.onResponse = (status: number, body: string) => onResponse(status, body);
  // autocannon's own latency histogram has 1 ms resolution; keep ours in microseconds.
  const latencyUs = createHistogram();
  const serverCpuBefore = spec.serverPid === undefined ? undefined : processCpuSeconds(spec.serverPid);
  const ownCpuBefore = ownCpuSeconds();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: url.origin, connections: spec.connections, duration: spec.durationS, pipelining: 1, timeout: 10, requests: [request] },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencyUs.record(Math.max(1, Math.round(ms * 1000))));
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number((stat as { count: number | string }).count);
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const serverCpuAfter = spec.serverPid === undefined ? undefined : processCpuSeconds(spec.serverPid);
  const serverCpu = serverCpuBefore !== undefined && serverCpuAfter !== undefined ? serverCpuAfter - serverCpuBefore : undefined;
  return {
    requests,
    durationS: result.duration,
    rps: requests / result.duration,
    p50Ms: latencyUs.count > 0 ? latencyUs.percentile(50) / 1000 : 0,
    p99Ms: latencyUs.count > 0 ? latencyUs.percentile(99) / 1000 : 0,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    serverCores: serverCpu === undefined ? undefined : serverCpu / result.duration,
    generatorCores: (ownCpuSeconds() - ownCpuBefore) / result.duration,
    serverUsPerRequest: serverCpu === undefined || requests === 0 ? undefined : (serverCpu * 1e6) / requests,
  };
}

function postRequest(path: string, nextBody: string | (() => string)): autocannon.Request {
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    ...(typeof nextBody === 'string' ? { body: nextBody } : { setupRequest: (req: autocannon.Request) => ({ ...req, body: nextBody() }) }),
  };
}
