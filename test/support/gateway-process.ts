// Runs the real gateway and CLI as child processes (what an operator runs), for tests that
// need a separate process: crash, restart, CLI-while-serving, start-up output.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath; // the pinned Node 24 running this test

export type GatewayProcess = {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Sends `signal` (SIGTERM by default) and waits; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** How the process ended: an exit code, or the signal that killed it. */
  exited: Promise<ProcessExit>;
};

export type ProcessExit = { code: number | null; signal: NodeJS.Signals | null };

const running = new Set<ChildProcess>();

/** Kills every gateway this test file started and has not stopped (call from `after`). */
export async function killLeftoverGateways(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  running.clear();
}

/** A free loopback port (for tests that must know the port before the gateway starts). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function gatewayEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key]) base[key] = process.env[key]!;
  return { ...base, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0', ...env };
}

export async function startGatewayProcess(env: Record<string, string>, timeoutMs = 20_000): Promise<GatewayProcess> {
  const { match, ...rest } = await startUntil(['serve'], env, /listening on (http:\/\/[^\s]+)/, timeoutMs);
  return { ...rest, url: match[1]! };
}

export type DeliverProcess = Omit<GatewayProcess, 'url'> & { instanceId: string };

/** `deliver` (the delivery-only process), once it says it is delivering. */
export async function startDeliverProcess(env: Record<string, string>, timeoutMs = 20_000): Promise<DeliverProcess> {
  const { match, ...rest } = await startUntil(['deliver'], env, /Delivering notifications \(\w+\) as (\S+)/, timeoutMs);
  return { ...rest, instanceId: match[1]! };
}

/** Starts a long-running CLI command and resolves once its stdout matches `ready`. */
async function startUntil(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs: number,
): Promise<Omit<GatewayProcess, 'url'> & { match: RegExpExecArray }> {
  const child = spawn(NODE, ['src/cli/index.ts', ...args], {
    cwd: ROOT,
    env: gatewayEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args[0]} did not start in ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    const check = () => {
      const found = ready.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited (${code ?? signal}) before it was ready\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return {
    child,
    match,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return (await exited).code;
    },
  };
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs a CLI command (or another entry) to completion; killed after `timeoutMs`. */
export function runCliProcess(
  args: string[],
  env: Record<string, string>,
  entry = 'src/cli/index.ts',
  timeoutMs = 30_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [entry, ...args], {
      cwd: ROOT,
      env: gatewayEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** POSTs JSON over real HTTP. */
export async function httpPost(url: string, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Polls `check` until it returns true or `withinMs` passes; returns the elapsed ms or throws. */
export async function eventually(check: () => Promise<boolean>, withinMs: number, stepMs = 250): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
