// reconcile — one Asia/Bangkok day's payments at the processor, asked about again and compared
// with what the gateway recorded and with the ledger (app/processor/daily-reconciliation.ts).
// Exit 1 when anything differs, so a scheduler can alert on it.
import { DailyReconciler, type ReconciledPayment } from '../../app/processor/daily-reconciliation.ts';
import { connectorFor } from '../../connectors/connector-for.ts';
import { bangkokDate, bangkokDayStart } from '../../domain/bangkok-time.ts';
import { formatMinor } from '../../domain/money.ts';
import type { Command } from './context.ts';
import { UsageError, flags, table } from './context.ts';
import { withStore } from './with-store.ts';

const amount = (minor: bigint): string => formatMinor(minor, 4);

function paymentJson(p: ReconciledPayment) {
  return {
    transactionid: p.transactionId,
    reference: p.reference,
    currency: p.currency,
    recorded_state: p.recordedState,
    processor_state: p.processorState,
    processor_net: amount(p.processorNetMinor),
    ledger_net: amount(p.ledgerNetMinor),
    differences: p.differences,
  };
}

export const reconcileCommands: Record<string, Command> = {
  reconcile: {
    summary: "compare a day's payments at the processor with the gateway and its ledger (exit 1 on a difference)",
    usage: '[--date YYYY-MM-DD (Asia/Bangkok; default: yesterday)] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, { date: { type: 'string' }, json: { type: 'boolean' } });
      const day = values.date ?? bangkokDate(Date.now() - 86_400_000);
      if (bangkokDayStart(day) === undefined)
        throw new UsageError(`--date must be a calendar day YYYY-MM-DD, not ${day}`);
      const connector = connectorFor(ctx.config);
      try {
        if (connector.capabilities.qr !== 'processor') {
          ctx.io.out(`Nothing to reconcile: the ${connector.name} connector moves no money at a processor.`);
          return 0;
        }
        const report = await withStore(ctx, (store) =>
          new DailyReconciler({
            connector,
            attempts: store.processorAttempts,
            payments: store.payments,
            refunds: store.refunds,
            ledger: store.ledger,
            attention: store.attention,
          }).run(day),
        );
        const totals = Object.fromEntries(
          Object.entries(report.totals).map(([c, t]) => [
            c,
            { processor: amount(t.processorMinor), ledger: amount(t.ledgerMinor) },
          ]),
        );
        if (values.json) {
          ctx.io.out(
            JSON.stringify({
              date: day,
              payments: report.payments.map(paymentJson),
              totals,
              differences: report.differences,
            }),
          );
        } else {
          const rows = report.payments.map(paymentJson);
          table(
            ctx.io,
            [
              'TRANSACTIONID',
              'REFERENCE',
              'RECORDED',
              'PROCESSOR',
              'PROCESSOR_NET',
              'LEDGER_NET',
              'CURRENCY',
              'DIFFERENCES',
            ],
            rows.map((r) => [
              r.transactionid,
              r.reference,
              r.recorded_state,
              r.processor_state,
              r.processor_net,
              r.ledger_net,
              r.currency,
              r.differences.join('; ') || '-',
            ]),
          );
          for (const [c, t] of Object.entries(totals))
            ctx.io.out(`Total ${c}: processor ${t.processor}, ledger ${t.ledger}`);
          ctx.io.out(
            `${day} (Asia/Bangkok): ${report.payments.length} payment(s) at ${connector.name}, ` +
              `${report.differences} difference(s).`,
          );
        }
        return report.differences === 0 ? 0 : 1;
      } finally {
        connector.close?.();
      }
    },
  },
};
