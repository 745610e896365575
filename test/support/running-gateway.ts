// A gateway as a merchant's developer meets it: a separate `serve` process (sandbox, delivery
// worker running) on a fresh store, with one merchant created through the operator CLI first.
import type { Dialect } from '../../src/store/engine.ts';
import { createMerchant, gatewayEnv, type Creds } from './delivery-process.ts';
import { runCliProcess, startGatewayProcess, type GatewayProcess } from './gateway-process.ts';
import { createTestDatabase } from './test-store.ts';

export type RunningGateway = {
  url: string;
  env: Record<string, string>;
  creds: Creds;
  process: GatewayProcess;
  close(): Promise<void>;
};

export async function startRunningGateway(
  options: { dialect?: Dialect; env?: Record<string, string>; merchantId?: string } = {},
): Promise<RunningGateway> {
  const database = await createTestDatabase(options.dialect ?? 'sqlite');
  try {
    const env = gatewayEnv(database.databaseUrl, { RETRY_LADDER: '0,200ms,200ms', ...options.env });
    const creds =
      options.merchantId === undefined
        ? await createMerchant(env, 'Dev Shop')
        : await createMerchantWithId(env, options.merchantId);
    const process = await startGatewayProcess(env);
    return {
      url: process.url,
      env,
      creds,
      process,
      async close() {
        await process.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function createMerchantWithId(env: Record<string, string>, id: string): Promise<Creds> {
  const result = await runCliProcess(
    [
      'merchant',
      'create',
      '--name',
      'Dev Shop',
      '--payout-currency',
      'THB',
      '--payout-account',
      '1234567890',
      '--id',
      id,
      '--json',
    ],
    env,
  );
  if (result.code !== 0) throw new Error(`merchant create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Creds;
}

/** A valid initiation request (the README's example) for these credentials. */
export function initiation(
  creds: { merchantid: string; password: string },
  serverUrl: string,
  trackid: string,
  amount = '1000.00',
): Record<string, unknown> {
  return {
    merchantid: creds.merchantid,
    password: creds.password,
    payment_method: { type: 'THAI_DEBIT' },
    trackid,
    bill_currencycode: 'THB',
    bill_amount: amount,
    bill_country: 'TH',
    bill_customerip: '127.0.0.1',
    bill_email: 'payer@example.com',
    returnUrl: 'https://shop.example/return',
    serverUrl,
    payer_account_no: '1234567890',
    payer_account_name: 'Somchai Jaidee',
    payer_bank_code: 'SCB',
  };
}
