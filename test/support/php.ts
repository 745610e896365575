// Runs PHP scripts against packages/php/ThaiQrGateway.php with Debian's php-cli (and php-curl).
// In CI (CI=true) a missing PHP is a failure; elsewhere the tests skip and say why.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PHP_CLIENT = fileURLToPath(new URL('../../packages/php/ThaiQrGateway.php', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../packages/fixtures/', import.meta.url));

/** Why the PHP tests cannot run here, or false. Throws in CI. */
export function phpSkipReason(): string | false {
  let problem: string | undefined;
  try {
    const version = execFileSync(
      'php',
      ['-r', 'echo PHP_VERSION_ID, " ", extension_loaded("curl") ? "curl" : "nocurl";'],
      { encoding: 'utf8' },
    ).trim();
    const [id, curl] = version.split(' ');
    if (Number(id) < 80100) problem = `php ${id} is older than 8.1`;
    else if (curl !== 'curl') problem = 'the php curl extension is missing';
  } catch {
    problem = 'php is not installed';
  }
  if (!problem) return false;
  const fix = "install Debian's php-cli and php-curl (apt-get install -y php-cli php-curl)";
  if (process.env.CI === 'true') throw new Error(`CI=true but ${problem}: ${fix} so the PHP client tests run.`);
  return `${problem}; ${fix} to run the PHP client tests`;
}

export type PhpResult = { code: number | null; stdout: string; stderr: string };

export function runPhp(
  script: string,
  env: Record<string, string>,
  stdin = '',
  timeoutMs = 60_000,
): Promise<PhpResult> {
  return new Promise((resolve) => {
    const child = spawn('php', ['-d', 'display_errors=stderr', `${FIXTURES}${script}`], {
      env: { PATH: process.env.PATH ?? '', CLIENT_FILE: PHP_CLIENT, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(stdin);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
