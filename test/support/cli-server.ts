// A long-running CLI command (`gateway kbank-sim`, `gateway scb-sim`, `gateway listen`) as a real
// process on an ephemeral port, for its CLI tests: its stdout and stderr as they come, and its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gatewayEnv } from './gateway-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type CliServer = { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> };

export function startCliServer(
  command: 'kbank-sim' | 'scb-sim' | 'listen',
  args: string[],
  env: Record<string, string> = {},
): CliServer {
  const child = spawn(process.execPath, ['src/cli/index.ts', command, '--port', '0', ...args], {
    cwd: ROOT,
    env: gatewayEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}
