// Real gateway processes for the crash and multi-instance delivery tests: `serve` and the CLI
// started as children with their own environment, exactly as an operator would run them.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { TEST_SECRET_KEY_HEX } from '../support/test-gateway.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = 'src/cli/index.ts';

export function gatewayEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    GATEWAY_MODE: 'sandbox',
    HOST: '127.0.0.1',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    CREATE_DEMO_MERCHANT: 'false',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export type GatewayProcess = {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr (for failure messages). */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export async function spawnGateway(env: Record<string, string>, timeoutMs = 20_000): Promise<GatewayProcess> {
  const child = spawn(NODE, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start within ${timeoutMs} ms:\n${out}\n${err}`));
    }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code ?? signal}) before listening:\n${out}\n${err}`));
    });
  });
  return { url, child, stderr: () => err, exited };
}

/** Runs an operator CLI command and parses its --json output. */
export function cliJson<T = any>(env: Record<string, string>, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(NODE, [CLI, ...args], { cwd: ROOT, env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${args.join(' ')} failed: ${stderr || error.message}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`${args.join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

export type Creds = { merchantid: string; password: string; webhook_secret: string };

export function createMerchant(env: Record<string, string>, name: string): Promise<Creds> {
  return cliJson<Creds>(env, ['merchant', 'create', '--name', name, '--payout-currency', 'THB', '--payout-account', '1234567890', '--json']);
}

async function postJson(url: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, any>;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Initiation through the API, then sandbox completion; returns the transaction id. */
export async function payThrough(gatewayUrl: string, creds: Creds, serverUrl: string, trackid: string): Promise<string> {
  const init = await postJson(`${gatewayUrl}/transaction/s2s`, {
    merchantid: creds.merchantid,
    password: creds.password,
    payment_method: { type: 'THAI_DEBIT' },
    trackid,
    bill_currencycode: 'THB',
    bill_amount: '1000.00',
    bill_country: 'TH',
    bill_customerip: '127.0.0.1',
    bill_email: 'payer@example.com',
    returnUrl: 'https://shop.example.com/return',
    serverUrl,
    payer_account_no: '1234567890',
    payer_account_name: 'Test Payer',
    payer_bank_code: '014',
  });
  await postJson(`${gatewayUrl}/sandbox/transaction/complete`, { merchantid: creds.merchantid, password: creds.password, transactionid: init.transactionid });
  return init.transactionid as string;
}
