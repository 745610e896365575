// One delivery attempt: sign, POST, record the attempt and the next step on the retry ladder
// (docs/notifications.md), metrics and log. At-least-once: a crash between the send and the record
// repeats the send, with the same webhook-id. Sends reuse keep-alive connections per origin
// (http-sender.ts explains why that keeps the outbound policy intact and what a stale connection
// does); retries open new ones.
import type { Logger } from 'pino';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';
import type { AttemptTransition, OutboxEvent } from '../domain/outbox-event.ts';
import type { DeliveryDeps } from './deliver-deps.ts';
import type { Resolver } from './guarded-lookup.ts';
import { NotificationSender, type SendOutcome } from './http-sender.ts';
import { healthOfStatus, type ExchangeHealth } from './origin-window.ts';
import { OpenedSecrets, signingSecrets } from '../domain/signing-secrets.ts';
import { notificationHeaders } from './notification-request.ts';
import { nextTransition, type AttemptResult, type ScheduleOptions } from './retry-schedule.ts';
import { gatewayUserAgent } from './user-agent.ts';

export type SendAttemptOptions = {
  /** Overrides the policy the deps give (tests of live mode). */
  policy?: OutboundPolicy;
  /** Fake DNS for tests; the system resolver otherwise. */
  resolver?: Resolver;
  /** Uniform [0, 1) for jitter. */
  random?: () => number;
};

export type SendAttemptParts = {
  deps: Pick<
    DeliveryDeps,
    'findMerchant' | 'key' | 'now' | 'outboundPolicy' | 'settings' | 'recordAttempt' | 'attemptMade' | 'attemptRecorded'
  >;
  /** The instance the leases belong to. */
  owner: string;
  /** A retry is due at `at`. */
  retryAt: (at: number) => void;
  logger: Logger;
};

export class SendAttempt {
  readonly #parts: SendAttemptParts;
  readonly #sender: NotificationSender;
  readonly #opened: OpenedSecrets;
  readonly #schedule: ScheduleOptions;
  readonly #userAgent = gatewayUserAgent();

  constructor(parts: SendAttemptParts, options: SendAttemptOptions = {}) {
    const { deps } = parts;
    this.#parts = parts;
    this.#sender = new NotificationSender({
      policy: options.policy ?? deps.outboundPolicy,
      ...(options.resolver && { resolver: options.resolver }),
    });
    this.#opened = new OpenedSecrets(deps.key);
    this.#schedule = {
      ladderMs: deps.settings.retryLadderMs,
      jitterPercent: deps.settings.jitterPercent,
      random: options.random ?? Math.random,
    };
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#sender.close();
  }

  /** Makes one attempt of `event`; `sent` is called once its HTTP exchange is over, before the record. */
  async deliver(event: OutboxEvent, sent: (latencyMs: number, health: ExchangeHealth) => void): Promise<void> {
    const { deps, owner } = this.#parts;
    const startedAt = deps.now();
    const outcome = await this.#send(event, startedAt);
    sent(outcome.latencyMs, outcome.kind === 'error' ? 'unreachable' : healthOfStatus(outcome.status));

    const result: AttemptResult =
      outcome.kind === 'response'
        ? { kind: 'response', status: outcome.status, retryAfter: outcome.retryAfter }
        : outcome;
    const transition = nextTransition(result, event.attempts + 1, deps.now(), this.#schedule);
    const redirected = outcome.kind === 'response' && outcome.status >= 300 && outcome.status <= 399;
    const applied = await deps.recordAttempt({
      attempt: {
        eventId: event.id,
        series: event.series,
        startedAt,
        latencyMs: outcome.latencyMs,
        httpStatus: outcome.kind === 'response' ? outcome.status : null,
        error: outcome.kind === 'error' ? outcome.error : redirected ? 'redirects are not followed' : null,
        responseExcerpt: outcome.kind === 'response' ? outcome.excerpt : null,
        instanceId: owner,
      },
      owner,
      transition,
    });
    // A customer may be waiting on the hosted page for this first attempt (app/notification-waits.ts).
    deps.attemptRecorded(event.id);
    deps.attemptMade(
      transition.status === 'pending' ? 'retry' : transition.status,
      outcome.kind === 'response' ? outcome.status : null,
      outcome.latencyMs / 1000,
    );
    this.#report(event, transition, applied);
  }

  /** Signs and sends; never unsigned. */
  async #send(event: OutboxEvent, startedAt: number): Promise<SendOutcome> {
    const { deps } = this.#parts;
    // Usually the merchant directory's copy, so an attempt costs no read (deliver-deps.ts).
    const merchant = await deps.findMerchant(event.merchantId);
    let secrets: string[] | undefined;
    try {
      if (merchant) secrets = signingSecrets(merchant, deps.key, startedAt, this.#opened);
    } catch {
      secrets = undefined;
    }
    if (!secrets) {
      // Never send unsigned: a merchant could not tell it from a forgery.
      return {
        kind: 'error',
        error: "not sent: the merchant's webhook secret cannot be opened (was GATEWAY_SECRET_KEY changed?)",
        latencyMs: 0,
      };
    }
    return this.#sender.send({
      url: event.targetUrl,
      body: Buffer.from(event.payload, 'utf8'),
      headers: notificationHeaders({
        eventId: event.id,
        payload: event.payload,
        secrets,
        nowMs: startedAt,
        userAgent: this.#userAgent,
      }),
      timeoutMs: deps.settings.timeoutMs,
      // A retry: the endpoint already failed once, so its answer comes on a connection of its own.
      fresh: event.attempts > 0,
    });
  }

  /** Logs what the attempt led to, and times the retry of a failed one. */
  #report(event: OutboxEvent, transition: AttemptTransition, applied: boolean): void {
    const { logger } = this.#parts;
    const log = { eventId: event.id, target: event.origin, attempt: event.attempts + 1, series: event.series };
    if (!applied)
      logger.warn(log, 'delivery attempt recorded, but the event changed hands meanwhile (lease expired or resent)');
    else if (transition.status === 'delivered') logger.debug(log, 'notification delivered');
    else if (transition.status === 'failed')
      logger.warn({ ...log, error: transition.lastError }, 'notification failed after the last retry');
    else {
      logger.info(
        { ...log, error: transition.lastError, nextAttemptAt: new Date(transition.nextAttemptAt).toISOString() },
        'notification attempt failed; will retry',
      );
      this.#parts.retryAt(transition.nextAttemptAt);
    }
  }
}
