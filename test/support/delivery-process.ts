// Helpers for the crash and multi-instance delivery tests, over the shared process harness
// (test/support/gateway-process.ts): their environment, CLI JSON, and a payment made end to end.
import { TEST_SECRET_KEY_HEX } from './test-gateway.ts';
import { runCliProcess } from './gateway-process.ts';

/** The gateway settings these tests share (the harness adds PATH and friends). */
export function gatewayEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: TEST_SECRET_KEY_HEX,
    GATEWAY_MODE: 'sandbox',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    CREATE_DEMO_MERCHANT: 'false',
    ...extra,
  };
}

/** Runs an operator CLI command and parses its --json output. */
export async function cliJson<T = any>(env: Record<string, string>, args: string[]): Promise<T> {
  const result = await runCliProcess(args, env);
  if (result.code !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`${args.join(' ')} printed no JSON: ${result.stdout}`);
  }
}

export type Creds = { merchantid: string; password: string; webhook_secret: string };

export function createMerchant(env: Record<string, string>, name: string): Promise<Creds> {
  return cliJson<Creds>(env, [
    'merchant',
    'create',
    '--name',
    name,
    '--payout-currency',
    'THB',
    '--payout-account',
    '1234567890',
    '--json',
  ]);
}

async function postJson(url: string, body: unknown): Promise<Record<string, any>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Initiation through the API, then sandbox completion; returns the transaction id. */
export async function payThrough(
  gatewayUrl: string,
  creds: Creds,
  serverUrl: string,
  trackid: string,
): Promise<string> {
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
  await postJson(`${gatewayUrl}/sandbox/transaction/complete`, {
    merchantid: creds.merchantid,
    password: creds.password,
    transactionid: init.transactionid,
  });
  return init.transactionid as string;
}
