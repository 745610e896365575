// listen | trigger — the developer's loop in sandbox: see notifications arrive, finish payments.
import { openMigratedStore, resolveSecretKey } from '../../bootstrap.ts';
import { createServices } from '../../compose/services.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isSandboxOutcome, SANDBOX_OUTCOMES } from '../../domain/lifecycle.ts';
import { statusOf } from '../../domain/responses.ts';
import { signingSecrets } from '../../domain/signing-secrets.ts';
import { formatEntry, startInbox } from '../../dev/notification-inbox.ts';
import type { Command } from './context.ts';
import { UsageError, flags, requirePositional } from './context.ts';

/** Resolves at the first SIGINT or SIGTERM: the end of a command that runs until stopped. */
export function waitForStop(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

export const devCommands: Record<string, Command> = {
  listen: {
    summary: 'development inbox: receive notifications locally, verify their signatures, print them (Ctrl-C stops)',
    usage: '[--port 4242] [--host 127.0.0.1] [--merchant <merchantid>] [--forward-to <url>] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        port: { type: 'string' },
        host: { type: 'string' },
        merchant: { type: 'string' },
        'forward-to': { type: 'string' },
        json: { type: 'boolean' },
      });
      const port = Number(values.port ?? '4242');
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
      const forwardTo = values['forward-to'];
      if (forwardTo !== undefined && !/^https?:\/\/[^\s]+$/.test(forwardTo))
        throw new UsageError('--forward-to must be an http(s) URL');
      const key = resolveSecretKey(ctx.config);
      const store = await openMigratedStore(ctx.config);
      try {
        const merchants = store.merchants;
        if (values.merchant !== undefined && !(await merchants.findById(values.merchant)))
          throw new GatewayError('NOT_FOUND', `No merchant ${values.merchant}.`);
        const inbox = await startInbox({
          host: values.host ?? '127.0.0.1',
          port,
          ...(values.merchant !== undefined && { merchantId: values.merchant }),
          ...(forwardTo !== undefined && { forwardTo }),
          // Read per notification, so a secret rotated while listening is picked up.
          async secretsFor(merchantId) {
            const merchant = await merchants.findById(merchantId);
            return merchant ? signingSecrets(merchant, key, Date.now()) : [];
          },
          onEntry: (entry) => ctx.io.out(values.json ? JSON.stringify(entry) : formatEntry(entry)),
        });
        // Listening for the stop signal before anything is printed: whoever reads the output may
        // stop us at once (a test, a script), and a signal before the handler would kill the process.
        const stopped = waitForStop();
        // On stderr, so --json output stays one JSON object per line.
        ctx.io.err(
          [
            `Listening for notifications on ${inbox.url} ` +
              `(${values.merchant ? `merchant ${values.merchant}` : 'any merchant'}; ` +
              `signatures checked with the webhook secrets in the store).`,
            `Use it as serverUrl when you initiate a payment` +
              `${forwardTo ? `; verified notifications are forwarded to ${forwardTo}` : ''}. Ctrl-C stops.`,
          ].join('\n'),
        );
        await stopped;
        await inbox.close();
      } finally {
        await store.close();
      }
      return 0;
    },
  },
  trigger: {
    summary: 'sandbox: finish a payment as the customer would (same use case as POST /sandbox/transaction/complete)',
    usage: `<transactionid> [--outcome ${SANDBOX_OUTCOMES.join('|')}] [--json]`,
    async run(args, ctx) {
      const { values, positionals } = flags(args, { outcome: { type: 'string' }, json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'transactionid');
      const outcome = values.outcome;
      if (outcome !== undefined && !isSandboxOutcome(outcome))
        throw new UsageError(`--outcome must be one of ${SANDBOX_OUTCOMES.join(', ')}`);
      if (ctx.config.mode !== 'sandbox')
        throw new GatewayError(
          'INVALID_STATE',
          'trigger works in sandbox mode only; in live mode the processor decides.',
        );
      const key = resolveSecretKey(ctx.config);
      const store = await openMigratedStore(ctx.config);
      try {
        const services = createServices(ctx.config, store, key);
        const done = await services.complete.execute(id, 'sandbox', outcome === undefined ? {} : { override: outcome });
        // Wake the serving instances now rather than at their next poll.
        await store.deliveries.wakeups?.announce('cli').catch(() => {});
        const status = statusOf(done, ctx.config.publicBaseUrl);
        ctx.io.out(
          values.json
            ? JSON.stringify(status)
            : `Transaction ${done.id} is now ${status.result}${done.errorCodeTag ? ` (${done.errorCodeTag})` : ''}; ` +
                `its notification goes to ${done.serverUrl}.`,
        );
      } finally {
        await store.close();
      }
      return 0;
    },
  },
};
