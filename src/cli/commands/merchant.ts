// merchant create | list | rotate-password | rotate-webhook-secret | disable | enable
import { openMigratedStore, resolveSecretKey } from '../../bootstrap.ts';
import { ManageMerchants } from '../../app/manage-merchants.ts';
import { MerchantsRepo } from '../../store/merchants.repo.ts';
import type { Command, CommandContext } from './context.ts';
import { flags, requirePositional } from './context.ts';

async function withMerchants<T>(ctx: CommandContext, work: (manage: ManageMerchants) => Promise<T>): Promise<T> {
  const key = resolveSecretKey(ctx.config);
  const store = await openMigratedStore(ctx.config);
  try {
    return await work(new ManageMerchants(new MerchantsRepo(store.db), key, ctx.config.webhookSecretOverlapMs));
  } finally {
    await store.close();
  }
}

function print(ctx: CommandContext, json: boolean | undefined, value: Record<string, unknown>, human: string): void {
  ctx.io.out(json ? JSON.stringify(value) : human);
}

export const merchantCommands: Record<string, Command> = {
  'merchant create': {
    summary: 'create a merchant; prints its password and webhook secret once',
    async run(args, ctx) {
      const { values } = flags(args, {
        name: { type: 'string', required: true },
        'payout-currency': { type: 'string', required: true },
        'payout-account': { type: 'string', required: true },
        id: { type: 'string' },
        'fee-rate': { type: 'string' },
        json: { type: 'boolean' },
      });
      const issued = await withMerchants(ctx, (m) =>
        m.create({
          name: values.name!,
          payoutCurrency: values['payout-currency']!,
          payoutAccount: values['payout-account']!,
          ...(values.id !== undefined && { id: values.id }),
          ...(values['fee-rate'] !== undefined && { feeRate: values['fee-rate'] }),
        }),
      );
      print(ctx, values.json, issued, [
        `Merchant created. Store these now; they are not shown again.`,
        `  merchantid:     ${issued.merchantid}`,
        `  password:       ${issued.password}`,
        `  webhook_secret: ${issued.webhook_secret}`,
      ].join('\n'));
      return 0;
    },
  },
  'merchant list': {
    summary: 'list merchants (no secrets)',
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
        created_at: new Date(m.createdAt).toISOString(),
      }));
      if (values.json) ctx.io.out(JSON.stringify(rows));
      else if (rows.length === 0) ctx.io.out('No merchants.');
      else for (const r of rows) ctx.io.out(`${r.merchantid}\t${r.status}\t${r.payout_currency}\t${r.payout_account}\t${r.name}`);
      return 0;
    },
  },
  'merchant rotate-password': {
    summary: '<merchantid>: issue a new API password (the old one stops working)',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      const issued = await withMerchants(ctx, (m) => m.rotatePassword(id));
      print(ctx, values.json, issued, `New password for ${id} (shown once): ${issued.password}`);
      return 0;
    },
  },
  'merchant rotate-webhook-secret': {
    summary: '<merchantid>: new signing secret; the old one also signs until the overlap ends',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'merchantid');
      const issued = await withMerchants(ctx, (m) => m.rotateWebhookSecret(id));
      print(ctx, values.json, issued, `New webhook secret for ${id} (shown once): ${issued.webhook_secret}\nThe previous secret keeps signing until ${issued.previous_valid_until}.`);
      return 0;
    },
  },
  'merchant disable': {
    summary: '<merchantid>: refuse all of the merchant\'s requests (MERCHANT_DISABLED)',
    async run(args, ctx) {
      const { positionals } = flags(args, {});
      const id = requirePositional(positionals, 'merchantid');
      await withMerchants(ctx, (m) => m.setStatus(id, 'disabled'));
      ctx.io.out(`Merchant ${id} disabled.`);
      return 0;
    },
  },
  'merchant enable': {
    summary: '<merchantid>: accept the merchant\'s requests again',
    async run(args, ctx) {
      const { positionals } = flags(args, {});
      const id = requirePositional(positionals, 'merchantid');
      await withMerchants(ctx, (m) => m.setStatus(id, 'active'));
      ctx.io.out(`Merchant ${id} enabled.`);
      return 0;
    },
  },
};
