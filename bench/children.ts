// Child processes of the benchmark (servers, CLI calls). Every child is tracked so that a
// failure or Ctrl-C anywhere still stops them all; nothing outlives the run.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Credentials } from './request-bodies.ts';

const live = new Set<ChildProcess>();

export type ServerChild = {
  process: ChildProcess;
  /** The base URL the server printed when it started listening. */
  url: string;
  /** Sends SIGTERM, waits for the exit (SIGKILL after `graceMs`), returns the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** stderr seen so far (the last 8 KiB), for error messages. */
  stderr(): string;
};

const TAIL = 8192;

/**
 * Starts `node <args>` and resolves once a stdout line matches `ready` (its first capture
 * group is the URL). Rejects if the child exits first or `timeoutMs` passes.
 */
export function startServer(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<ServerChild> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-TAIL)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );

  const stop = async (graceMs = 20_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };

  return new Promise<ServerChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(1000);
      reject(new Error(`${args.join(' ')} did not report ready within ${timeoutMs} ms\n${err}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out = (out + chunk).slice(-TAIL);
      const match = ready.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ process: child, url: match[1], stop, stderr: () => err });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code} before it was ready\n${out}\n${err}`));
    });
  });
}

/** Runs `node <args>` to completion and returns its stdout; rejects on a non-zero exit. */
export function runNode(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-TAIL)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (code === 0) resolve(out);
      else reject(new Error(`node ${args.join(' ')} failed (${signal ?? code})\n${err}`));
    });
  });
}

/** Runs `node <args>` to completion and returns its exit code and output, whatever the code. */
export function runNodeResult(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-TAIL)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Creates a THB merchant with the gateway's own CLI (`cli`: the path of its src/cli/index.ts) and
 * returns the credentials it printed once.
 */
export async function createBenchMerchant(
  cli: string,
  env: Record<string, string>,
  name = 'Bench',
): Promise<Credentials> {
  const out = await runNode(
    [cli, 'merchant', 'create', '--name', name, '--payout-currency', 'THB', '--payout-account', '1234567890', '--json'],
    env,
  );
  const creds = JSON.parse(
    out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .at(-1) ?? '{}',
  ) as Credentials;
  if (!creds.merchantid || !creds.password) throw new Error(`merchant create printed no credentials:\n${out}`);
  return creds;
}

/** Last-resort cleanup (failure, signal): kill whatever is still running. */
export function killAllChildren(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}
