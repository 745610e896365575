// ledger credit | debit | show | verify — thin over app/ledger-operations.ts.
// Balances and amounts are printed with four fraction digits (the ledger's precision).
import { openMigratedStore } from '../../bootstrap.ts';
import {
  LedgerOperations,
  type AdjustmentResult,
  type LedgerCheck,
  type MerchantLedger,
} from '../../app/ledger-operations.ts';
import { formatMinor } from '../../domain/money.ts';
import { type EntryWithPostings } from '../../domain/ledger.ts';
import type { Command, CommandContext } from './context.ts';
import { UsageError, flags } from './context.ts';

async function withLedger<T>(ctx: CommandContext, work: (ops: LedgerOperations) => Promise<T>): Promise<T> {
  const store = await openMigratedStore(ctx.config);
  try {
    return await work(
      new LedgerOperations({
        store,
        ledger: store.ledger,
        merchants: store.merchants,
        now: Date.now,
      }),
    );
  } finally {
    await store.close();
  }
}

const amount4 = (minor: bigint) => formatMinor(minor, 4);
const signed4 = (minor: bigint) => (minor > 0n ? `+${amount4(minor)}` : amount4(minor));
const iso = (ms: number) => new Date(ms).toISOString();

function entryJson(e: EntryWithPostings) {
  return {
    entry_id: e.id,
    kind: e.kind,
    merchantid: e.merchantId,
    transactionid: e.transactionId,
    idempotency_key: e.idempotencyKey,
    reason: e.reason,
    created_at: iso(e.createdAt),
    postings: e.postings.map((p) => ({
      line: p.lineNo,
      account: p.accountId,
      currency: p.currency,
      amount: amount4(p.amountMinor),
      balance_after: p.balanceAfterMinor === null ? null : amount4(p.balanceAfterMinor),
    })),
  };
}

function entryLines(e: EntryWithPostings): string[] {
  const ref = e.transactionId ? `transaction ${e.transactionId}` : `key ${e.idempotencyKey}`;
  return [
    `  ${iso(e.createdAt)}  ${e.kind.padEnd(7)} ${e.id}  ${ref}${e.reason ? `  "${e.reason}"` : ''}`,
    ...e.postings.map(
      (p) =>
        `      ${p.accountId.padEnd(44)} ${signed4(p.amountMinor).padStart(20)} ${p.currency}` +
        `${p.balanceAfterMinor === null ? '' : `  → ${amount4(p.balanceAfterMinor)}`}`,
    ),
  ];
}

function adjustmentCommand(direction: 'credit' | 'debit'): Command {
  return {
    summary: `${direction} a merchant account (once per idempotency key)`,
    usage: '--merchant <id> --amount <100.00> --currency <ISO 4217> --reason <text> --idempotency-key <key> [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        merchant: { type: 'string', required: true },
        amount: { type: 'string', required: true },
        currency: { type: 'string', required: true },
        reason: { type: 'string', required: true },
        'idempotency-key': { type: 'string', required: true },
        json: { type: 'boolean' },
      });
      const result: AdjustmentResult = await withLedger(ctx, (ops) =>
        ops.adjust({
          direction,
          merchantId: values.merchant!,
          amount: values.amount!,
          currency: values.currency!,
          reason: values.reason!,
          idempotencyKey: values['idempotency-key']!,
        }),
      );
      if (values.json) {
        ctx.io.out(
          JSON.stringify({
            replayed: result.replayed,
            ...entryJson(result.entry),
            amount: amount4(result.amountMinor),
            currency: result.currency,
            balance: amount4(result.balanceMinor),
          }),
        );
        return 0;
      }
      const what = `${amount4(result.amountMinor)} ${result.currency}`;
      ctx.io.out(
        result.replayed
          ? `Already posted: idempotency key '${result.entry.idempotencyKey}' was used by entry ${result.entry.id} ` +
              `at ${iso(result.entry.createdAt)} (${result.entry.kind} of ${what}); nothing was posted again.`
          : `${direction === 'credit' ? 'Credited' : 'Debited'} ${what} ${direction === 'credit' ? 'to' : 'from'} ` +
              `merchant ${result.entry.merchantId} (entry ${result.entry.id}).`,
      );
      ctx.io.out(`${result.currency} balance of merchant ${result.entry.merchantId}: ${amount4(result.balanceMinor)}`);
      return 0;
    },
  };
}

function printShow(ctx: CommandContext, view: MerchantLedger): void {
  const m = view.merchant;
  ctx.io.out(
    `Merchant ${m.id} (${m.name}, ${m.status}) — payout currency ${m.payoutCurrency}, ` +
      `payout account ••••${m.payoutAccount.slice(-4)}, fee rate ${m.feeRatePpm} ppm`,
  );
  ctx.io.out('Balances:');
  for (const a of view.accounts) {
    const note = a.isPayoutAccount ? '  (payout account: QueryPayoutBalance reports this)' : '';
    ctx.io.out(`  ${a.currency}  ${amount4(a.balanceMinor).padStart(22)}  ${a.postingCount} posting(s)${note}`);
  }
  if (view.entries.length === 0) {
    ctx.io.out('No entries.');
    return;
  }
  ctx.io.out(`Recent entries (newest first, ${view.entries.length}):`);
  for (const e of view.entries) for (const line of entryLines(e)) ctx.io.out(line);
}

function printCheck(ctx: CommandContext, check: LedgerCheck, json: boolean | undefined): void {
  if (json) {
    ctx.io.out(JSON.stringify(check, (_k, v: unknown) => (typeof v === 'bigint' ? amount4(v) : v)));
    return;
  }
  if (check.ok) {
    ctx.io.out(
      'Ledger OK: every entry sums to zero per currency, every stored balance equals its postings, ' +
        'no payout balance is negative.',
    );
    return;
  }
  for (const u of check.unbalancedEntries)
    ctx.io.err(`Entry ${u.entryId} does not sum to zero in ${u.currency}: ${amount4(u.sumMinor)}`);
  for (const id of check.malformedEntries)
    ctx.io.err(`Entry ${id} has fewer than two postings or postings without an entry row`);
  for (const b of check.balanceMismatches)
    ctx.io.err(
      `Account ${b.accountId}: stored ${amount4(b.storedMinor)}, postings add up to ${amount4(b.postedMinor)}`,
    );
  for (const id of check.negativePayoutAccounts) ctx.io.err(`Payout account ${id} is negative`);
}

export const ledgerCommands: Record<string, Command> = {
  'ledger credit': adjustmentCommand('credit'),
  'ledger debit': adjustmentCommand('debit'),
  'ledger show': {
    summary: "a merchant's balances and recent entries",
    usage: '--merchant <id> [--limit N] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        merchant: { type: 'string', required: true },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      });
      let limit: number | undefined;
      if (values.limit !== undefined) {
        if (!/^\d{1,4}$/.test(values.limit)) throw new UsageError('--limit must be a whole number');
        limit = Number(values.limit);
      }
      const view = await withLedger(ctx, (ops) => ops.show(values.merchant!, limit === undefined ? {} : { limit }));
      if (!values.json) {
        printShow(ctx, view);
        return 0;
      }
      ctx.io.out(
        JSON.stringify({
          merchantid: view.merchant.id,
          payout_currency: view.merchant.payoutCurrency,
          balances: view.accounts.map((a) => ({
            account: a.id,
            currency: a.currency,
            balance: amount4(a.balanceMinor),
            postings: Number(a.postingCount),
            payout_account: a.isPayoutAccount,
          })),
          entries: view.entries.map(entryJson),
        }),
      );
      return 0;
    },
  },
  'ledger verify': {
    summary: 're-derive every ledger invariant from the stored rows (exit 1 on a violation)',
    usage: '[--json]',
    async run(args, ctx) {
      const { values } = flags(args, { json: { type: 'boolean' } });
      const check = await withLedger(ctx, (ops) => ops.verify());
      printCheck(ctx, check, values.json);
      return check.ok ? 0 : 1;
    },
  },
};
