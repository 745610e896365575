// Builds and packs packages/client (`npm pack`, which runs its build), installs the tarball in
// a clean temp directory as a merchant would, and runs scripts there with a chosen Node.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLIENT_DIR = fileURLToPath(new URL('../../packages/client/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../packages/fixtures/', import.meta.url));

export type Installed = { dir: string; tarball: string; files: string[]; cleanup(): void };

/** `npm pack` (builds dist/ through prepack) and `npm install <tarball>` in an empty directory. */
export function packAndInstall(): Installed {
  const dir = mkdtempSync(join(tmpdir(), 'gw-client-'));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        cwd: CLIENT_DIR,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = join(dir, packed[0]!.filename);
    const app = join(dir, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return {
      dir: app,
      tarball,
      files: packed[0]!.files.map((f) => f.path).sort(),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Node 20 as a merchant has it: the system node, when it is v20. */
export function node20(): string | undefined {
  for (const candidate of [process.env.NODE20_BIN, '/usr/bin/node', '/usr/local/bin/node'].filter(
    Boolean,
  ) as string[]) {
    try {
      if (execFileSync(candidate, ['--version'], { encoding: 'utf8' }).startsWith('v20.')) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

export type ScriptResult = { code: number | null; stdout: string; stderr: string };

/** Copies fixtures/<script> into the installed app and runs it with `node` (a path), env only as given. */
export function runScript(
  installed: Installed,
  node: string,
  script: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ScriptResult> {
  copyFileSync(join(FIXTURES, script), join(installed.dir, script));
  return new Promise((resolve) => {
    const child = spawn(node, [script], {
      cwd: installed.dir,
      env: { PATH: process.env.PATH ?? '', ...env },
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
