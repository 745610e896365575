// kbank-sim as a child process of the benchmark (the bank on this machine, as in
// docs/connectors/kbank-sim.md), with the gateway settings that point the KBank connector at it.
// Its credentials come from a fixed seed, so nothing needs parsing beyond the URL it prints.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { credentialsOf, resolveConfig } from '../src/dev/kbank-sim/config.ts';
import { startServer } from './children.ts';

const SEED = 'bench';

export type KbankSimChild = { url: string; gatewayEnv: Record<string, string>; stop(): Promise<void> };

export async function startKbankSimChild(gatewayDir: string): Promise<KbankSimChild> {
  const server = await startServer(
    // A ticking clock: the QRs live their 10 minutes in real time, like KBank's.
    [join(gatewayDir, 'src/cli/index.ts'), 'kbank-sim', '--port', '0', '--json', '--real-clock', '--seed', SEED],
    {},
    /"url":"(http:\/\/127\.0\.0\.1:\d+)"/,
  );
  const c = credentialsOf(resolveConfig({ seed: SEED }));
  return {
    url: server.url,
    gatewayEnv: {
      PROCESSOR_CONNECTOR: 'kbank',
      KBANK_BASE_URL: server.url,
      KBANK_CONSUMER_ID: c.consumerId,
      KBANK_CONSUMER_SECRET: c.consumerSecret,
      KBANK_PARTNER_ID: c.partnerId,
      KBANK_PARTNER_SECRET: c.partnerSecret,
      KBANK_MERCHANT_ID: c.merchantId,
      KBANK_CALLBACK_PATH_TOKEN: randomBytes(32).toString('hex'),
      TRANSACTION_TTL: '10m',
    },
    async stop() {
      await server.stop(5000);
    },
  };
}
