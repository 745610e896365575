// refund list | show — the refunds merchants made through POST /transaction/refund;
// refund record — a refund ALREADY paid by bank transfer, by the gateway's operator from the
// merchant's funds or by the merchant from its own account (--paid-by, required: it decides the
// merchant's balance, docs/ledger.md), recorded through app/record-transfer-refund.ts (the
// console's form writes the same rows and audit entry).
import { CLI_RECORDER } from '../../app/record-transfer-refund.ts';
import { resolveSecretKey } from '../../bootstrap.ts';
import { createServices } from '../../compose/services.ts';
import { GatewayError } from '../../domain/errors.ts';
import { currencyExponent, formatMinor } from '../../domain/money.ts';
import { paidByTransfer, TRANSFER_PAYERS, type RefundRecord, type TransferPaidBy } from '../../domain/refund.ts';
import type { Command } from './context.ts';
import { withStore } from './with-store.ts';
import { parseCursor, parseLimit, pageOf } from './paging.ts';
import { flags, requirePositional, table, UsageError } from './context.ts';

function refundJson(r: RefundRecord) {
  const money = (minor: bigint) => formatMinor(minor, currencyExponent(r.currency));
  return {
    refundid: r.id,
    merchantid: r.merchantId,
    transactionid: r.transactionId,
    amount: money(r.amountMinor),
    currency: r.currency,
    refunded_after: money(r.refundedAfterMinor),
    reason: r.reason,
    reference: r.reference,
    processor: r.processor,
    processor_reference: r.processorReference,
    /** `processor` (the connector refunded it) or `bank_transfer` (recorded; processor_reference is the transfer's). */
    method: paidByTransfer(r) ? 'bank_transfer' : 'processor',
    /** Who sent a bank transfer: `gateway` or `merchant`; null for a refund at the processor. */
    paid_by: r.transferPaidBy,
    created_at: new Date(r.createdAt).toISOString(),
  };
}

/** How the refund reached the payer, for people. */
function paidByText(r: ReturnType<typeof refundJson>): string {
  if (r.method === 'bank_transfer') return `bank transfer by the ${r.paid_by}, reference ${r.processor_reference}`;
  return `${r.processor}${r.processor_reference ? ` (${r.processor_reference})` : ''}`;
}

/** --paid-by: who sent the transfer; anything else is a usage error naming the flag. */
function payerOf(value: string): TransferPaidBy {
  const payer = TRANSFER_PAYERS.find((p) => p === value);
  if (!payer)
    throw new UsageError(
      "--paid-by must be 'gateway' (the gateway's operator sent the transfer from the merchant's funds) " +
        "or 'merchant' (the merchant sent it from its own account)",
    );
  return payer;
}

export const refundCommands: Record<string, Command> = {
  'refund record': {
    summary: 'record a refund ALREADY paid by bank transfer (moves no money; for payments the processor cannot refund)',
    usage:
      '--merchant <id> --transaction <transactionid> --amount <"100.00"> --reference <transfer_reference> ' +
      '--paid-by <gateway|merchant> [--reason <text>] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        merchant: { type: 'string', required: true },
        transaction: { type: 'string', required: true },
        amount: { type: 'string', required: true },
        reference: { type: 'string', required: true },
        'paid-by': { type: 'string', required: true },
        reason: { type: 'string' },
        json: { type: 'boolean' },
      });
      const paidBy = payerOf(values['paid-by']!);
      const key = resolveSecretKey(ctx.config);
      const outcome = await withStore(ctx, async (store) => {
        const recorded = await createServices(ctx.config, store, key).recordTransfer.record({
          merchantId: values.merchant!,
          transactionId: values.transaction!.toLowerCase(),
          amount: values.amount!,
          transferReference: values.reference!,
          paidBy,
          reason: values.reason ?? null,
          by: CLI_RECORDER,
        });
        // Wake the serving instances' delivery workers now rather than at their next poll.
        if (!recorded.replayed) await store.deliveries.wakeups?.announce('cli').catch(() => {});
        return recorded;
      });
      const json = refundJson(outcome.refund);
      if (values.json) {
        ctx.io.out(JSON.stringify({ replayed: outcome.replayed, ...json, response: outcome.response }));
        return 0;
      }
      ctx.io.out(
        outcome.replayed
          ? `Already recorded: transfer ${json.processor_reference} is refund ${json.refundid} ` +
              `(${json.amount} ${json.currency}, ${json.created_at}); nothing was recorded again.`
          : `Recorded refund ${json.refundid}: ${json.amount} ${json.currency} of transaction ${json.transactionid}, ` +
              `paid by bank transfer ${json.processor_reference} by the ${json.paid_by}. No money moved; ` +
              (json.paid_by === 'gateway'
                ? "the amount was taken from the merchant's balance"
                : "the merchant's balance is unchanged") +
              "; the merchant's refund notification is on its way.",
      );
      ctx.io.out(`Still refundable: ${outcome.response.refundable_amount} ${json.currency}`);
      return 0;
    },
  },
  'refund list': {
    summary: 'refunds, newest first',
    usage: '[--merchant <id>] [--transaction <transactionid>] [--limit N] [--cursor <next_cursor>] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        merchant: { type: 'string' },
        transaction: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        json: { type: 'boolean' },
      });
      const limit = parseLimit(values.limit);
      const before = parseCursor(values.cursor, 'rfd_', 'refund list');
      const page = await withStore(ctx, (store) =>
        store.refunds.list({
          limit: limit + 1,
          ...(before && { before }),
          ...(values.merchant !== undefined && { merchantId: values.merchant }),
          ...(values.transaction !== undefined && { transactionId: values.transaction }),
        }),
      );
      const { rows: refunds, nextCursor } = pageOf(page, limit);
      const rows = refunds.map(refundJson);
      if (values.json) ctx.io.out(JSON.stringify({ refunds: rows, next_cursor: nextCursor }));
      else if (rows.length === 0) ctx.io.out('No refunds.');
      else {
        table(
          ctx.io,
          [
            'REFUNDID',
            'MERCHANTID',
            'TRANSACTIONID',
            'AMOUNT',
            'CURRENCY',
            'REFUNDED_AFTER',
            'CREATED_AT',
            'REASON',
            'PAID_BY',
          ],
          rows.map((r) => [
            r.refundid,
            r.merchantid,
            r.transactionid,
            r.amount,
            r.currency,
            r.refunded_after,
            r.created_at,
            r.reason ?? '',
            paidByText(r),
          ]),
        );
      }
      if (!values.json && nextCursor) ctx.io.err(`More: add --cursor ${nextCursor}`);
      return 0;
    },
  },
  'refund show': {
    summary: 'one refund, its payment and its notification',
    usage: '<refundid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'refundid');
      const found = await withStore(ctx, async (store) => {
        const refund = await store.refunds.findById(id);
        if (!refund) return undefined;
        const payment = await store.payments.findById(refund.merchantId, refund.transactionId);
        const event = await store.outbox.findByRefund(id);
        return { refund, payment, event };
      });
      if (!found) throw new GatewayError('NOT_FOUND', `No refund with id '${id}'.`);
      const { refund, payment, event } = found;
      const money = (minor: bigint) => formatMinor(minor, currencyExponent(refund.currency));
      const json = {
        ...refundJson(refund),
        payment: payment
          ? { trackid: payment.trackid, amount: money(payment.amountMinor), refunded: money(payment.refundedMinor) }
          : null,
        notification: event
          ? {
              event_id: event.id,
              status: event.status,
              attempts: event.attempts,
              delivered_at: event.deliveredAt === null ? null : new Date(event.deliveredAt).toISOString(),
              last_error: event.lastError,
            }
          : null,
      };
      if (values.json) {
        ctx.io.out(JSON.stringify(json));
        return 0;
      }
      ctx.io.out(
        [
          `refund ${json.refundid}: ${json.amount} ${json.currency} on ${json.created_at}`,
          `  merchant ${json.merchantid}, transaction ${json.transactionid}` +
            (json.payment
              ? ` (trackid ${json.payment.trackid}, captured ${json.payment.amount}, ` +
                `refunded ${json.payment.refunded} in total)`
              : ''),
          `  refunded after this refund: ${json.refunded_after} ${json.currency}`,
          `  reason    ${json.reason ?? '-'}`,
          `  reference ${json.reference ?? '-'}`,
          `  paid by   ${paidByText(json)}`,
          json.notification
            ? `  notification ${json.notification.event_id}: ${json.notification.status} ` +
              `after ${json.notification.attempts} attempt(s)` +
              `${json.notification.last_error ? ` — ${json.notification.last_error}` : ''} ` +
              `(delivery show ${json.notification.event_id})`
            : '  notification: none',
        ].join('\n'),
      );
      return 0;
    },
  },
};
