// kbank-sim — a local KBank QR Payment simulator (docs/connectors/kbank-sim.md) to develop and try
// the KBank connector without the bank: KBank's token and QR calls, payment callbacks, and the
// /__sim control API to pay a QR, move the clock, settle and inject faults. Runs until stopped.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { bangkokIso } from '../../dev/sim-kit/clock.ts';
import {
  credentialsOf,
  resolveConfig,
  SimConfigError,
  type KbankSimOptions,
  type SimCredentials,
} from '../../dev/kbank-sim/config.ts';
import { startKbankSim } from '../../dev/kbank-sim/server.ts';
import type { Command } from './context.ts';
import { UsageError, flags } from './context.ts';
import { waitForStop } from './dev.ts';

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'callback-url': { type: 'string' },
  'consumer-id': { type: 'string' },
  'consumer-secret': { type: 'string' },
  'partner-id': { type: 'string' },
  'partner-secret': { type: 'string' },
  'merchant-id': { type: 'string' },
  seed: { type: 'string' },
  now: { type: 'string' },
  'real-clock': { type: 'boolean' },
  json: { type: 'boolean' },
  'gateway-env': { type: 'string' },
  'gateway-url': { type: 'string' },
} as const;

/** The first line of a settings file kbank-sim wrote: only such a file is ever overwritten. */
const ENV_FILE_MARKER = '# Written by `gateway kbank-sim --gateway-env`';

/**
 * The gateway's settings for this simulator, as a .env file (docs/connectors/kbank-sim.md
 * "Trying the gateway on it"): the connector, the credentials, a new callback path token.
 */
function gatewayEnvFile(url: string, credentials: SimCredentials, callbackPathToken: string): string {
  return [
    `${ENV_FILE_MARKER} for the KBank simulator on ${url}. Not for production.`,
    'PROCESSOR_CONNECTOR=kbank',
    `KBANK_BASE_URL=${url}`,
    `KBANK_CONSUMER_ID=${credentials.consumerId}`,
    `KBANK_CONSUMER_SECRET=${credentials.consumerSecret}`,
    `KBANK_PARTNER_ID=${credentials.partnerId}`,
    `KBANK_PARTNER_SECRET=${credentials.partnerSecret}`,
    `KBANK_MERCHANT_ID=${credentials.merchantId}`,
    `KBANK_CALLBACK_PATH_TOKEN=${callbackPathToken}`,
    // A KBank QR lives 10 minutes; a payment that outlived it would wait on a dead QR.
    'TRANSACTION_TTL=10m',
    '',
  ].join('\n');
}

/** Writes `file` (owner-only: it holds secrets), refusing to replace a file kbank-sim did not write. */
function writeGatewayEnv(file: string, text: string): void {
  if (existsSync(file) && !readFileSync(file, 'utf8').startsWith(ENV_FILE_MARKER))
    throw new UsageError(`--gateway-env ${file} exists and was not written by kbank-sim; choose another file`);
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export const kbankSimCommands: Record<string, Command> = {
  'kbank-sim': {
    summary:
      'development: a local KBank QR Payment simulator (token, QR calls, callbacks, /__sim control API; Ctrl-C stops)',
    usage:
      '[--port 8787] [--host 127.0.0.1] [--callback-url <url>] [--consumer-id <id>] [--consumer-secret <secret>] ' +
      '[--partner-id <id>] [--partner-secret <secret>] [--merchant-id <id>] [--seed <text>] [--now <iso>] ' +
      '[--real-clock] [--json] [--gateway-env <file> [--gateway-url http://127.0.0.1:8080]]',
    async run(args, ctx) {
      const { values } = flags(args, FLAGS);
      const port = Number(values.port ?? '8787');
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
      // Credentials not given are generated per run (from --seed when given, so a run can be repeated).
      const seed = values.seed ?? randomBytes(16).toString('hex');
      const generated = credentialsOf(resolveConfig({ seed }));
      const merchantId = values['merchant-id'] ?? generated.merchantId;
      // --gateway-env: the gateway's settings go to a file, and KBank's callbacks to that gateway.
      const envFile = values['gateway-env'];
      const callbackPathToken = randomBytes(32).toString('hex');
      const gatewayUrl = (values['gateway-url'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
      if (values['gateway-url'] !== undefined && envFile === undefined)
        throw new UsageError('--gateway-url goes with --gateway-env');
      const callbackUrl =
        values['callback-url'] ??
        (envFile === undefined ? undefined : `${gatewayUrl}/processor/kbank/notify/${callbackPathToken}`);
      const options: KbankSimOptions = {
        host: values.host ?? '127.0.0.1',
        port,
        seed,
        now: values.now ?? new Date(),
        tickingClock: values['real-clock'] ?? false,
        consumers: {
          [values['consumer-id'] ?? generated.consumerId]: values['consumer-secret'] ?? generated.consumerSecret,
        },
        partners: {
          [values['partner-id'] ?? generated.partnerId]: {
            secret: values['partner-secret'] ?? generated.partnerSecret,
            merchantIds: [merchantId],
          },
        },
        ...(callbackUrl !== undefined && { callbackUrls: { [merchantId]: callbackUrl } }),
      };
      let sim;
      try {
        sim = await startKbankSim(options);
      } catch (error) {
        if (error instanceof SimConfigError) throw new UsageError(error.message);
        throw error;
      }
      try {
        if (envFile !== undefined)
          writeGatewayEnv(envFile, gatewayEnvFile(sim.url, sim.credentials, callbackPathToken));
      } catch (error) {
        await sim.close();
        throw error;
      }
      const clock = sim.clock();
      const summary = {
        url: sim.url,
        ...sim.credentials,
        callbackUrl: callbackUrl ?? null,
        gatewayEnv: envFile ?? null,
        clock: clock.now,
        clockTicking: clock.ticking,
        control: `${sim.url}/__sim`,
      };
      const pay =
        `curl -s -X POST ${sim.url}/__sim/pay -H 'content-type: application/json' ` +
        `-d '{"partnerTxnUid":"<the partnerTxnUid of your QR request>"}'`;
      // The path token is the callback's only credential: people see where callbacks go, not it.
      const shownCallbackUrl =
        summary.callbackUrl?.replace(callbackPathToken, '<token>') ?? '(none; POST /__sim/callback-url sets one)';
      // Listening for the stop signal before anything is printed: whoever reads the output may
      // stop us at once (a test, a script), and a signal before the handler would kill the process.
      const stopped = waitForStop();
      if (values.json) ctx.io.out(JSON.stringify({ ...summary, examplePay: pay }));
      else
        ctx.io.out(
          [
            `KBank simulator on ${sim.url}`,
            `  consumer id      ${summary.consumerId}`,
            `  consumer secret  ${summary.consumerSecret}`,
            `  partner id       ${summary.partnerId}`,
            `  partner secret   ${summary.partnerSecret}`,
            `  merchant id      ${summary.merchantId}`,
            `  callback URL     ${shownCallbackUrl}`,
            ...(envFile === undefined ? [] : [`  gateway settings ${envFile} (npm start reads .env)`]),
            `  clock            ${bangkokIso(clock.unixMs)} ` +
              `(${clock.ticking ? 'ticking' : 'fixed'}; POST /__sim/clock moves it)`,
            '',
            'Pay a QR as the customer would:',
            `  ${pay}`,
            `Control API: GET ${sim.url}/__sim (state, log, clock, settle, callbacks, faults).`,
          ].join('\n'),
        );
      ctx.io.err('Ctrl-C stops.');
      await stopped;
      await sim.close();
      return 0;
    },
  },
};
