// delivery list | show | resend — watch and repair result notifications.
import { GatewayError } from '../../domain/errors.ts';
import { resendNotification } from '../../app/resend-notification.ts';
import { type DeliveryAttempt, type OutboxEvent, type OutboxStatus } from '../../domain/outbox-event.ts';
import type { Command } from './context.ts';
import { withStore } from './with-store.ts';
import { parseCursor, parseLimit, pageOf } from './paging.ts';
import { UsageError, flags, requirePositional, table } from './context.ts';

const STATUSES: readonly OutboxStatus[] = ['pending', 'delivered', 'failed'];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function eventJson(e: OutboxEvent) {
  return {
    event_id: e.id,
    status: e.status,
    merchantid: e.merchantId,
    transactionid: e.transactionId,
    refundid: e.refundId,
    target_url: e.targetUrl,
    series: e.series,
    attempts: e.attempts,
    created_at: iso(e.createdAt),
    next_attempt_at: e.status === 'pending' ? iso(e.nextAttemptAt) : null,
    delivered_at: iso(e.deliveredAt),
    last_error: e.lastError,
    in_flight_on: e.leaseOwner,
  };
}

function attemptJson(a: DeliveryAttempt) {
  return {
    attempt_no: a.attemptNo,
    series: a.series,
    started_at: iso(a.startedAt),
    latency_ms: a.latencyMs,
    http_status: a.httpStatus,
    error: a.error,
    response_excerpt: a.responseExcerpt,
    instance_id: a.instanceId,
  };
}

function outcomeText(a: DeliveryAttempt): string {
  if (a.httpStatus !== null) return `HTTP ${a.httpStatus}${a.error ? ` (${a.error})` : ''}`;
  return a.error ?? 'unknown';
}

export const deliveryCommands: Record<string, Command> = {
  'delivery list': {
    summary: 'notifications (payment results and refunds), newest first',
    usage: '[--merchant <id>] [--status failed|pending|delivered] [--limit N] [--cursor <next_cursor>] [--json]',
    async run(args, ctx) {
      const { values } = flags(args, {
        merchant: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        json: { type: 'boolean' },
      });
      const status = values.status;
      if (status !== undefined && !STATUSES.includes(status as OutboxStatus))
        throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      const limit = parseLimit(values.limit);
      const before = parseCursor(values.cursor, 'evt_', 'delivery list');
      // One row more than asked tells whether another page follows.
      const page = await withStore(ctx, (store) =>
        store.outbox.list({
          limit: limit + 1,
          ...(before && { before }),
          ...(values.merchant !== undefined && { merchantId: values.merchant }),
          ...(status !== undefined && { status: status as OutboxStatus }),
        }),
      );
      const { rows: events, nextCursor } = pageOf(page, limit);
      const rows = events.map(eventJson);
      if (values.json) ctx.io.out(JSON.stringify({ deliveries: rows, next_cursor: nextCursor }));
      else if (rows.length === 0) ctx.io.out('No notifications.');
      else {
        table(
          ctx.io,
          ['EVENT_ID', 'STATUS', 'ATTEMPTS', 'MERCHANTID', 'CREATED_AT', 'NEXT_OR_DONE', 'LAST_ERROR'],
          rows.map((r) => {
            const when =
              r.status === 'delivered'
                ? `delivered ${r.delivered_at}`
                : r.status === 'pending'
                  ? `next ${r.next_attempt_at}`
                  : 'gave up';
            return [
              r.event_id,
              r.status,
              String(r.attempts),
              r.merchantid,
              r.created_at ?? '',
              when,
              r.last_error ?? '',
            ];
          }),
        );
      }
      if (!values.json && nextCursor) ctx.io.err(`More: add --cursor ${nextCursor}`);
      return 0;
    },
  },
  'delivery show': {
    summary: 'one notification and every attempt made',
    usage: '<event_id> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'event_id');
      const found = await withStore(ctx, async (store) => {
        const repo = store.outbox;
        const event = await repo.findById(id);
        return event ? { event, attempts: await repo.attempts(id) } : undefined;
      });
      if (!found) throw new GatewayError('NOT_FOUND', `No notification event with id '${id}'.`);
      const event = { ...eventJson(found.event), payload: found.event.payload };
      const attempts = found.attempts.map(attemptJson);
      if (values.json) {
        ctx.io.out(JSON.stringify({ ...event, attempt_log: attempts }));
        return 0;
      }
      ctx.io.out(
        [
          `event ${event.event_id}: ${event.status} ` +
            `(series ${event.series}, ${event.attempts} attempt(s) in this series)`,
          `  merchant ${event.merchantid}, transaction ${event.transactionid}`,
          `  target   ${event.target_url}`,
          `  created  ${event.created_at}`,
          ...(event.next_attempt_at ? [`  next     ${event.next_attempt_at}`] : []),
          ...(event.delivered_at ? [`  delivered ${event.delivered_at}`] : []),
          ...(event.last_error ? [`  last error: ${event.last_error}`] : []),
          `  body     ${event.payload}`,
          attempts.length === 0 ? '  no attempts yet' : '  attempts:',
          ...found.attempts.map(
            (a) =>
              `    #${a.attemptNo} (series ${a.series}) ${iso(a.startedAt)} ${outcomeText(a)} ` +
              `in ${a.latencyMs} ms on ${a.instanceId}` +
              `${a.responseExcerpt ? ` — ${JSON.stringify(a.responseExcerpt.slice(0, 120))}` : ''}`,
          ),
        ].join('\n'),
      );
      return 0;
    },
  },
  'delivery resend': {
    summary: 'deliver again (new attempt series, same webhook-id and body)',
    usage: '<event_id> [--json]',
    async run(args, ctx) {
      const { values, positionals } = flags(args, { json: { type: 'boolean' } });
      const id = requirePositional(positionals, 'event_id');
      const result = await withStore(ctx, (store) => resendNotification(store, id, Date.now()));
      if (values.json)
        ctx.io.out(
          JSON.stringify({
            event_id: result.eventId,
            series: result.series,
            previous_status: result.previousStatus,
            status: 'pending',
          }),
        );
      else
        ctx.io.out(
          `Event ${result.eventId} queued for delivery again ` +
            `(series ${result.series}; it was ${result.previousStatus}).`,
        );
      return 0;
    },
  },
};
