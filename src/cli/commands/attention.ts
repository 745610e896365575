// attention list | resolve — the needs-attention list (docs/console.md "Needs attention"), through
// the console's use case: a resolve from here writes the same row and the same audit entry
// (`attention.resolve`, actor cli) as the console's form, and a `payer_mismatch` item's decision
// (--decision accept|decline) ends its held payment the same way (the serving instances' delivery
// workers are woken for its notification). processor attempts — a payment's life
// at the processor: the attempts made there, the notifications it sent, its attention items.
import {
  ConsoleAttention,
  MAX_NOTE_LENGTH,
  PAYER_DECISIONS,
  type AttentionEntry,
  type PayerDecision,
} from '../../app/console/attention.ts';
import { ConsoleAudit } from '../../app/console/console-audit.ts';
import { CompletePayment } from '../../app/complete-payment.ts';
import type { Store } from '../../app/ports/store.ts';
import { GatewayError } from '../../domain/errors.ts';
import { formatMinor } from '../../domain/money.ts';
import type { AttentionItem, ProcessorAttempt, ProcessorNotification } from '../../domain/processor-attempt.ts';
import type { Command } from './context.ts';
import { UsageError, flags, requirePositional, table } from './context.ts';
import { withStore } from './with-store.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** Exact, 4 decimals, like the ledger's figures: a processor may report fractions the currency does not use. */
const amount = (minor: bigint | null): string | null => (minor === null ? null : formatMinor(minor, 4));
/** One table cell: a tab or line break someone typed (a note) would break the columns, other controls the terminal. */
const cell = (text: string | null | undefined): string => (text ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ');

function attentionOver(store: Store): ConsoleAttention {
  return new ConsoleAttention({
    attention: store.attention,
    reads: store.consoleReads,
    complete: new CompletePayment({ completions: store.completions, now: Date.now }),
    audit: new ConsoleAudit(store.consoleAccounts, Date.now),
    now: Date.now,
  });
}

function itemJson(i: AttentionItem) {
  return {
    id: i.id,
    status: i.resolvedAt === null ? 'open' : 'resolved',
    transactionid: i.transactionId,
    kind: i.kind,
    detail: i.detail,
    amount: amount(i.amountMinor),
    reference: i.reference,
    created_at: iso(i.createdAt),
    resolved_at: iso(i.resolvedAt),
    resolved_by: i.resolvedBy,
    resolution: i.resolution,
  };
}

function entryJson({ item, payment }: AttentionEntry) {
  return {
    ...itemJson(item),
    merchantid: payment?.merchantId ?? null,
    trackid: payment?.trackid ?? null,
    currency: payment?.currency ?? null,
  };
}

function attemptJson(a: ProcessorAttempt) {
  return {
    reference: a.reference,
    connector: a.connector,
    kind: a.kind,
    attempt: a.attempt,
    state: a.state,
    state_at: iso(a.stateAt),
    processor_txn_no: a.processorTxnNo,
    paid_amount: amount(a.paidAmountMinor),
    paid_at: iso(a.paidAt),
    expires_at: iso(a.expiresAt),
    account_name: a.accountName,
    issuer: a.issuer,
    qr_payload: a.qrPayload,
    refundid: a.refundId,
    last_error: a.lastError,
    checks: a.checks,
    next_check_at: iso(a.nextCheckAt),
    created_at: iso(a.createdAt),
  };
}

function notificationJson(n: ProcessorNotification) {
  return {
    id: n.id,
    connector: n.connector,
    received_at: iso(n.receivedAt),
    source_ip: n.sourceIp,
    outcome: n.outcome,
    reference: n.reference,
    processor_txn_no: n.processorTxnNo,
    body: n.body,
  };
}

export const attentionCommands: Record<string, Command> = {
  'attention list': {
    summary: 'payments that need a person (open items, newest first; --all adds the resolved ones)',
    usage: '[--all] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, { all: { type: 'boolean' }, json: { type: 'boolean' } });
      const entries = await withStore(ctx, async (store) => {
        const attention = attentionOver(store);
        const open = await attention.list(true);
        return values.all ? [...open, ...(await attention.list(false))] : open;
      });
      const rows = entries.map(entryJson);
      if (values.json) ctx.io.out(JSON.stringify({ attention: rows }));
      else if (rows.length === 0) ctx.io.out(values.all ? 'No attention items.' : 'Nothing needs attention.');
      else
        table(
          ctx.io,
          [
            'ID',
            'STATUS',
            'KIND',
            'TRANSACTIONID',
            'AMOUNT',
            'REFERENCE',
            'CREATED_AT',
            'RESOLVED_BY',
            'NOTE',
            'DETAIL',
          ],
          rows.map((r) => [
            r.id,
            r.status,
            r.kind,
            r.transactionid,
            r.amount === null ? '' : `${r.amount} ${r.currency ?? ''}`.trim(),
            r.reference ?? '',
            r.created_at ?? '',
            r.resolved_by ?? '',
            cell(r.resolution),
            cell(r.detail),
          ]),
        );
      return 0;
    },
  },
  'attention resolve': {
    summary:
      'mark a needs-attention item resolved, with a note saying what was done (audited); a payer_mismatch ' +
      'item by a decision: accept (the payment succeeds) or decline (it fails; return the money by bank transfer)',
    usage: '<id> --note "<what was done>" [--decision accept|decline] [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, {
        note: { type: 'string', required: true },
        decision: { type: 'string' },
        json: { type: 'boolean' },
      });
      const decision = values.decision;
      if (decision !== undefined && !PAYER_DECISIONS.includes(decision as PayerDecision))
        throw new UsageError(`--decision must be one of ${PAYER_DECISIONS.join(', ')}`);
      const id = requirePositional(positionals, 'id');
      if (positionals.length > 1) throw new UsageError('one id only');
      const note = values.note!.trim();
      if (note === '') throw new UsageError('--note must say what was done');
      if (note.length > MAX_NOTE_LENGTH) throw new UsageError(`--note must be at most ${MAX_NOTE_LENGTH} characters`);
      const item = await withStore(ctx, async (store) => {
        const resolved = await attentionOver(store).resolve({
          id,
          note,
          by: 'cli',
          decision: decision as PayerDecision | undefined,
        });
        // A decision wrote the payment's notification: wake the serving instances now, not at their next poll.
        if (decision !== undefined) await store.deliveries.wakeups?.announce('cli').catch(() => {});
        return resolved;
      });
      if (values.json) ctx.io.out(JSON.stringify(itemJson(item)));
      else if (decision === 'accept')
        ctx.io.out(`Attention item ${item.id} resolved: payment ${item.transactionId} accepted (SUCCESS).`);
      else if (decision === 'decline')
        ctx.io.out(
          `Attention item ${item.id} resolved: payment ${item.transactionId} declined (FAILED); ` +
            "return the payer's money by bank transfer.",
        );
      else ctx.io.out(`Attention item ${item.id} (payment ${item.transactionId}) resolved.`);
      return 0;
    },
  },
  'processor attempts': {
    summary: "a payment's attempts at the processor, the notifications the processor sent, its attention items",
    usage: '<transactionid> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'transactionid').toLowerCase();
      if (positionals.length > 1) throw new UsageError('one transactionid only');
      const found = await withStore(ctx, async (store) => {
        const payment = await store.consoleReads.find(id, undefined);
        if (!payment) return undefined;
        const [attempts, notifications, attention] = await Promise.all([
          store.processorAttempts.forTransaction(payment.id),
          store.processorNotifications.forTransaction(payment.id),
          store.attention.forTransaction(payment.id),
        ]);
        return { payment, attempts, notifications, attention };
      });
      if (!found) throw new GatewayError('NOT_FOUND', `No payment with transactionid '${id}'.`);
      const { payment } = found;
      const result = {
        transactionid: payment.id,
        merchantid: payment.merchantId,
        trackid: payment.trackid,
        status: payment.status,
        payer_check: payment.payerCheck,
        attempts: found.attempts.map(attemptJson),
        notifications: found.notifications.map(notificationJson),
        attention: found.attention.map(itemJson),
      };
      if (values.json) {
        ctx.io.out(JSON.stringify(result));
        return 0;
      }
      ctx.io.out(
        `Payment ${payment.id} (${payment.merchantId}, trackid ${payment.trackid}): ${payment.status}` +
          (payment.payerCheck === null ? '' : `, payer check ${payment.payerCheck}`),
      );
      ctx.io.out('');
      if (result.attempts.length === 0) ctx.io.out('No attempts at the processor.');
      else
        table(
          ctx.io,
          [
            'KIND',
            'ATTEMPT',
            'REFERENCE',
            'STATE',
            'STATE_AT',
            'PROCESSOR_TXN_NO',
            'PAID',
            'QR_EXPIRES_AT',
            'LAST_ERROR',
          ],
          result.attempts.map((a) => [
            a.kind,
            String(a.attempt),
            a.reference,
            a.state,
            a.state_at ?? '',
            a.processor_txn_no ?? '',
            a.paid_amount === null ? '' : `${a.paid_amount} ${payment.currency}`,
            a.kind === 'qr' ? (a.expires_at ?? '') : '',
            cell(a.last_error),
          ]),
        );
      ctx.io.out('');
      if (result.notifications.length === 0) ctx.io.out('No notifications from the processor.');
      else
        table(
          ctx.io,
          ['RECEIVED_AT', 'SOURCE_IP', 'OUTCOME', 'REFERENCE', 'BODY'],
          result.notifications.map((n) => [
            n.received_at ?? '',
            n.source_ip ?? '',
            n.outcome,
            n.reference ?? '',
            // JSON-quoted, so control characters in what the processor sent cannot reach the terminal.
            JSON.stringify(n.body.length > 200 ? `${n.body.slice(0, 200)}…` : n.body),
          ]),
        );
      if (result.attention.length > 0) {
        ctx.io.out('');
        table(
          ctx.io,
          ['ATTENTION_ID', 'STATUS', 'KIND', 'CREATED_AT', 'RESOLVED_BY', 'NOTE'],
          result.attention.map((i) => [
            i.id,
            i.status,
            i.kind,
            i.created_at ?? '',
            i.resolved_by ?? '',
            cell(i.resolution),
          ]),
        );
      }
      return 0;
    },
  },
};
