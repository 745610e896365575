// scb-sim — a local SCB QR30 simulator (docs/connectors/scb-sim.md) to develop and try the SCB
// connector without the bank: SCB's token, QR create v1/v2, bill-payment inquiry and slip,
// payment confirmations, and the /__sim control API and payer page to pay a QR, move the clock
// and inject faults. Runs until stopped.
import { randomBytes } from 'node:crypto';
import { bangkokIso } from '../../dev/sim-kit/clock.ts';
import { SimConfigError, type ScbSimOptions } from '../../dev/scb-sim/config.ts';
import { startScbSim, type ScbSim } from '../../dev/scb-sim/server.ts';
import type { Command } from './context.ts';
import { UsageError, flags } from './context.ts';
import { waitForStop } from './dev.ts';

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'confirm-url': { type: 'string' },
  'api-key': { type: 'string' },
  'api-secret': { type: 'string' },
  'biller-id': { type: 'string' },
  'ref3-prefix': { type: 'string' },
  seed: { type: 'string' },
  now: { type: 'string' },
  'real-clock': { type: 'boolean' },
  json: { type: 'boolean' },
  'gateway-env': { type: 'boolean' },
  'gateway-url': { type: 'string' },
} as const;

/**
 * The gateway's settings for this simulator as env lines (docs/connectors/scb-sim.md "Trying
 * the gateway on it"), the names config/scb.ts reads (docs/connectors/scb.md).
 */
function gatewayEnvLines(sim: ScbSim, confirmPathToken: string): string {
  const { apiKey, apiSecret, billerId, ref3Prefix } = sim.credentials;
  return [
    `# The gateway's settings for the SCB simulator on ${sim.url}. Not for production.`,
    'PROCESSOR_CONNECTOR=scb',
    `SCB_BASE_URL=${sim.baseUrl}`,
    `SCB_API_KEY=${apiKey}`,
    `SCB_API_SECRET=${apiSecret}`,
    `SCB_BILLER_ID=${billerId}`,
    `SCB_REF3_PREFIX=${ref3Prefix}`,
    `SCB_CONFIRM_PATH_TOKEN=${confirmPathToken}`,
    '',
  ].join('\n');
}

export const scbSimCommands: Record<string, Command> = {
  'scb-sim': {
    summary: 'development: a local SCB QR30 simulator (token, QR create, inquiry, confirmations, /__sim; Ctrl-C stops)',
    usage:
      '[--port 8788] [--host 127.0.0.1] [--confirm-url <url>] [--api-key <key>] [--api-secret <secret>] ' +
      '[--biller-id <15 digits>] [--ref3-prefix <ABC>] [--seed <text>] [--now <iso>] [--real-clock] ' +
      '[--json | --gateway-env [--gateway-url http://127.0.0.1:8080]]',
    async run(args, ctx) {
      const { values } = flags(args, FLAGS);
      const port = Number(values.port ?? '8788');
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
      const gatewayEnv = values['gateway-env'] ?? false;
      if (gatewayEnv && values.json) throw new UsageError('--gateway-env and --json both want stdout: choose one');
      if (values['gateway-url'] !== undefined && !gatewayEnv)
        throw new UsageError('--gateway-url goes with --gateway-env');
      // --gateway-env: confirmations go to that gateway's confirmation route, under a new path token.
      const confirmPathToken = randomBytes(32).toString('hex');
      const gatewayUrl = (values['gateway-url'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
      const confirmUrl =
        values['confirm-url'] ?? (gatewayEnv ? `${gatewayUrl}/processor/scb/confirm/${confirmPathToken}` : undefined);
      const options: ScbSimOptions = {
        host: values.host ?? '127.0.0.1',
        port,
        // Credentials not given are generated per run (from --seed when given, so a run can be repeated).
        seed: values.seed ?? randomBytes(16).toString('hex'),
        now: values.now ?? new Date(),
        tickingClock: values['real-clock'] ?? false,
        ...(values['api-key'] !== undefined && { apiKey: values['api-key'] }),
        ...(values['api-secret'] !== undefined && { apiSecret: values['api-secret'] }),
        ...(values['biller-id'] !== undefined && { billerId: values['biller-id'] }),
        ...(values['ref3-prefix'] !== undefined && { ref3Prefix: values['ref3-prefix'] }),
        ...(confirmUrl !== undefined && { confirmUrl }),
      };
      let sim;
      try {
        sim = await startScbSim(options);
      } catch (error) {
        if (error instanceof SimConfigError) throw new UsageError(error.message);
        throw error;
      }
      const clock = sim.clock();
      const summary = {
        url: sim.url,
        baseUrl: sim.baseUrl,
        ...sim.credentials,
        confirmUrl: confirmUrl ?? null,
        clock: clock.now,
        clockTicking: clock.ticking,
        control: `${sim.url}/__sim`,
        payerPage: `${sim.url}/__sim/payer`,
      };
      const pay =
        `curl -s -X POST ${sim.url}/__sim/pay -H 'content-type: application/json' ` +
        `-d '{"ref1":"<the ref1 of your QR>"}'`;
      // The path token is the confirmation route's only credential: people see where they go, not it.
      const shownConfirmUrl =
        summary.confirmUrl?.replace(confirmPathToken, '<token>') ?? '(none; POST /__sim/confirm-url sets one)';
      const human = [
        `SCB simulator on ${sim.url}`,
        `  SCB_BASE_URL     ${sim.baseUrl}`,
        `  API key          ${summary.apiKey}`,
        `  API secret       ${summary.apiSecret}`,
        `  biller id        ${summary.billerId}`,
        `  ref3 prefix      ${summary.ref3Prefix}`,
        `  confirm URL      ${shownConfirmUrl}`,
        `  clock            ${bangkokIso(clock.unixMs)} ` +
          `(${clock.ticking ? 'ticking' : 'fixed'}; POST /__sim/clock moves it)`,
        '',
        `Pay a QR as the customer would: ${summary.payerPage}, or`,
        `  ${pay}`,
        `Control API: GET ${sim.url}/__sim (state, log, clock, tokens, confirmations, faults).`,
      ].join('\n');
      // Listening for the stop signal before anything is printed: whoever reads the output may
      // stop us at once (a test, a script), and a signal before the handler would kill the process.
      const stopped = waitForStop();
      if (values.json) ctx.io.out(JSON.stringify({ ...summary, examplePay: pay }));
      else if (gatewayEnv) {
        // stdout is exactly the settings (`scb-sim --gateway-env > .env`); people read stderr.
        ctx.io.out(gatewayEnvLines(sim, confirmPathToken).trimEnd());
        ctx.io.err(human);
      } else ctx.io.out(human);
      ctx.io.err('Ctrl-C stops.');
      await stopped;
      await sim.close();
      return 0;
    },
  },
};
