// merchant create | list | update | rotate-password | rotate-webhook-secret | disable | enable
import { openMigratedStore, resolveSecretKey } from '../../bootstrap.ts';
import { ManageMerchants } from '../../app/manage-merchants.ts';
import type { Command, CommandContext } from './context.ts';
import { UsageError, flags, requirePositional, table } from './context.ts';

async function withMerchants<T>(ctx: CommandContext, work: (manage: ManageMerchants) => Promise<T>): Promise<T> {
  const key = resolveSecretKey(ctx.config);
  const store = await openMigratedStore(ctx.config);
  try {
    return await work(
      new ManageMerchants(store.merchants, store.consoleAccounts, key, ctx.config.webhookSecretOverlapMs),
    );
  } finally {
    await store.close();
  }
}

function print(ctx: CommandContext, json: boolean | undefined, value: Record<string, unknown>, human: string): void {
  ctx.io.out(json ? JSON.stringify(value) : human);
}

function statusCommand(status: 'active' | 'disabled', summary: string): Command {
  return {
    summary,
    usage: '<merchantid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      await withMerchants(ctx, (m) => m.setStatus(id, status));
      print(
        ctx,
        values.json,
        { merchantid: id, status },
        `Merchant ${id} ${status === 'active' ? 'enabled' : 'disabled'}.`,
      );
      return 0;
    },
  };
}

export const merchantCommands: Record<string, Command> = {
  'merchant create': {
    summary: 'create a merchant; prints its password and webhook secret once',
    usage:
      '--name <name> --payout-currency <ISO 4217> --payout-account <card or account number> ' +
      '[--id <merchantid>] [--fee-rate 0.025] [--payer-mismatch record|hold] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        name: { type: 'string', required: true },
        'payout-currency': { type: 'string', required: true },
        'payout-account': { type: 'string', required: true },
        id: { type: 'string' },
        'fee-rate': { type: 'string' },
        'payer-mismatch': { type: 'string' },
        json: { type: 'boolean' },
      });
      const issued = await withMerchants(ctx, (m) =>
        m.create({
          name: values.name!,
          payoutCurrency: values['payout-currency']!,
          payoutAccount: values['payout-account']!,
          ...(values.id !== undefined && { id: values.id }),
          ...(values['fee-rate'] !== undefined && { feeRate: values['fee-rate'] }),
          ...(values['payer-mismatch'] !== undefined && { payerMismatch: values['payer-mismatch'] }),
        }),
      );
      print(
        ctx,
        values.json,
        issued,
        [
          `Merchant created. Store these now; they are not shown again.`,
          `  merchantid:     ${issued.merchantid}`,
          `  password:       ${issued.password}`,
          `  webhook_secret: ${issued.webhook_secret}`,
        ].join('\n'),
      );
      return 0;
    },
  },
  'merchant list': {
    summary: 'list merchants (no secrets)',
    usage: '[--json]',
    async run(args, ctx) {
      const { values } = flags(args, { json: { type: 'boolean' } });
      const all = await withMerchants(ctx, (m) => m.list());
      const rows = all.map((m) => ({
        merchantid: m.id,
        name: m.name,
        status: m.status,
        payout_currency: m.payoutCurrency,
        payout_account: `••••${m.payoutAccount.slice(-4)}`,
        fee_rate_ppm: m.feeRatePpm.toString(),
        payer_mismatch: m.payerMismatch,
        created_at: new Date(m.createdAt).toISOString(),
      }));
      if (values.json) ctx.io.out(JSON.stringify({ merchants: rows }));
      else if (rows.length === 0) ctx.io.out('No merchants.');
      else
        table(
          ctx.io,
          ['MERCHANTID', 'STATUS', 'PAYOUT', 'ACCOUNT', 'NAME', 'PAYER_MISMATCH'],
          rows.map((r) => [r.merchantid, r.status, r.payout_currency, r.payout_account, r.name, r.payer_mismatch]),
        );
      return 0;
    },
  },
  'merchant update': {
    summary: "change a merchant's settings: --payer-mismatch record|hold (what a mismatched payer check does)",
    usage: '<merchantid> --payer-mismatch record|hold [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, {
        'payer-mismatch': { type: 'string', required: true },
        json: { type: 'boolean' },
      });
      const id = requirePositional(positionals, 'merchantid');
      if (positionals.length > 1) throw new UsageError('one merchantid only');
      const payerMismatch = await withMerchants(ctx, (m) => m.setPayerMismatch(id, values['payer-mismatch']!));
      print(
        ctx,
        values.json,
        { merchantid: id, payer_mismatch: payerMismatch },
        `Merchant ${id}: payer_mismatch is now ${payerMismatch}.`,
      );
      return 0;
    },
  },
  'merchant rotate-password': {
    summary: 'issue a new API password (the old one stops working)',
    usage: '<merchantid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      const issued = await withMerchants(ctx, (m) => m.rotatePassword(id));
      print(ctx, values.json, issued, `New password for ${id} (shown once): ${issued.password}`);
      return 0;
    },
  },
  'merchant rotate-webhook-secret': {
    summary: 'new signing secret; the old one also signs until the overlap ends',
    usage: '<merchantid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      const issued = await withMerchants(ctx, (m) => m.rotateWebhookSecret(id));
      const previous = issued.previous_valid_until
        ? `The previous secret keeps signing until ${issued.previous_valid_until}.`
        : 'The previous secret could not be opened with this GATEWAY_SECRET_KEY and was dropped; ' +
          'only the new one signs.';
      print(
        ctx,
        values.json,
        issued,
        `New webhook secret for ${id} (shown once): ${issued.webhook_secret}\n${previous}`,
      );
      return 0;
    },
  },
  'merchant disable': statusCommand('disabled', "refuse all of the merchant's requests (MERCHANT_DISABLED)"),
  'merchant enable': statusCommand('active', "accept the merchant's requests again"),
};
