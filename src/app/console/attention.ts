// The needs-attention list (docs/console.md "Needs attention"): payments the live use cases could
// not settle by themselves (app/processor/sync-payment.ts raises them: money paid at the processor
// after the payment ended and not voided, an amount that does not match, a payment held because
// another account paid it). Operators read it and mark an item resolved with a note saying what
// they did; an item of a held payment (`payer_mismatch`) is resolved by a decision on the payment
// itself — accept (it completes as SUCCESS) or decline (it fails as DECLINED; the money goes back
// by bank transfer) — written through CompletePayment like every ending. The console's page and
// the CLI's `attention` commands both go through here, so both write the same rows and the same
// audit entry.
import { GatewayError, invalidField, missingField } from '../../domain/errors.ts';
import type { AttentionItem } from '../../domain/processor-attempt.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
import type { CompletePayment } from '../complete-payment.ts';
import type { OpenAttention } from '../open-attention.ts';
import type { ConsoleReads } from '../ports/console.ts';
import type { AttentionStore } from '../ports/processor-store.ts';
import type { LoginSubject } from './console-accounts.ts';
import {
  auditActorOf,
  type AuditActor,
  type AuditOrigin,
  type ConsoleActor,
  type ConsoleAudit,
} from './console-audit.ts';

/** The store keeps this much of a note (store/repos/processor-notifications.repo.ts). */
export const MAX_NOTE_LENGTH = 500;
/** Open items listed at once; more than this many open at a time is an incident, not a list. */
export const OPEN_LIMIT = 500;
/** The most recently raised resolved items listed below the open ones. */
export const RESOLVED_LIMIT = 100;

/** An item with the payment it is about (undefined only if that row is gone). */
export type AttentionEntry = { item: AttentionItem; payment: TransactionRecord | undefined };

/** Who resolves an item: an operator in the console, or the CLI. */
export type AttentionResolver = ConsoleActor | 'cli';

/** The decision that resolves a `payer_mismatch` item (and only such an item). */
export type PayerDecision = 'accept' | 'decline';
export const PAYER_DECISIONS: readonly PayerDecision[] = ['accept', 'decline'];

/** What a decline tells whoever reads the item: the gateway moves no money back by itself. */
export const DECLINED_RETURN = "declined: the payer's money must be returned by bank transfer";

export type ConsoleAttentionDeps = {
  attention: Pick<AttentionStore, 'list' | 'find' | 'resolve'>;
  reads: Pick<ConsoleReads, 'find'>;
  /** Ends a held payment as the operator decided (payer_accepted, payer_declined). */
  complete: Pick<CompletePayment, 'execute'>;
  audit: ConsoleAudit;
  /** The in-memory count (undefined in the CLI, which keeps none). */
  count?: Pick<OpenAttention, 'value' | 'resolved'>;
  now: () => number;
};

const CLI_ACTOR: AuditActor = { role: 'cli', id: null };
const CLI_ORIGIN: AuditOrigin = { remoteAddr: null, requestId: null };

export class ConsoleAttention {
  readonly #deps: ConsoleAttentionDeps;
  constructor(deps: ConsoleAttentionDeps) {
    this.#deps = deps;
  }

  /** The open items' count as kept in memory (app/open-attention.ts), or undefined before it is known. */
  openCount(): number | undefined {
    return this.#deps.count?.value();
  }

  /** Open items, newest first (at most OPEN_LIMIT), or with `open: false` the resolved ones (RESOLVED_LIMIT). */
  async list(open: boolean, who?: LoginSubject): Promise<AttentionEntry[]> {
    operatorsOnly(who);
    const items = await this.#deps.attention.list({ open, limit: open ? OPEN_LIMIT : RESOLVED_LIMIT });
    const payments = await Promise.all(items.map((i) => this.#deps.reads.find(i.transactionId, undefined)));
    return items.map((item, i) => ({ item, payment: payments[i] }));
  }

  /**
   * Marks an open item resolved with the operator's note, and audits it (`attention.resolve`).
   * A `payer_mismatch` item needs a `decision`, carried out first: the held payment completes as
   * SUCCESS (accept) or fails as DECLINED (decline), with its notification and, on SUCCESS, its
   * ledger entry; the note is kept as `accepted: …` or `declined: the payer's money must be
   * returned by bank transfer — …`. Any other item takes no decision (INVALID_FIELD).
   * NOT_FOUND for an unknown id; INVALID_STATE, with nothing written, for one resolved already
   * (a second click, another operator first).
   */
  async resolve(input: {
    id: string;
    note: string;
    by: AttentionResolver;
    decision?: PayerDecision | undefined;
  }): Promise<AttentionItem> {
    const { by, decision } = input;
    if (by !== 'cli') operatorsOnly(by.who);
    const note = input.note.trim();
    if (note === '') throw missingField('note');
    if (note.length > MAX_NOTE_LENGTH) throw invalidField('note', `it must be at most ${MAX_NOTE_LENGTH} characters`);
    const open = await this.#deps.attention.find(input.id);
    if (!open) throw new GatewayError('NOT_FOUND', `No attention item with id '${input.id}'.`);
    if (open.resolvedAt !== null) throw alreadyResolved(open);
    if (open.kind === 'payer_mismatch' && decision === undefined) throw missingField('decision');
    if (open.kind !== 'payer_mismatch' && decision !== undefined)
      throw invalidField('decision', 'only an item of kind payer_mismatch is resolved by a decision');
    if (decision !== undefined && !PAYER_DECISIONS.includes(decision))
      throw invalidField('decision', 'it must be accept or decline');
    if (decision !== undefined) await this.#decide(open, decision);
    const resolution =
      decision === undefined ? note : decision === 'accept' ? `accepted: ${note}` : `${DECLINED_RETURN} — ${note}`;
    const resolvedBy = by === 'cli' ? 'cli' : `${by.who.role}:${by.who.name}`;
    const at = this.#deps.now();
    if (!(await this.#deps.attention.resolve(input.id, resolvedBy, resolution, at))) {
      throw alreadyResolved((await this.#deps.attention.find(input.id)) ?? open);
    }
    this.#deps.count?.resolved();
    const item = (await this.#deps.attention.find(input.id))!;
    await this.#deps.audit.record(
      by === 'cli' ? CLI_ACTOR : auditActorOf(by.who),
      'attention.resolve',
      item.id,
      {
        transactionid: item.transactionId,
        kind: item.kind,
        reference: item.reference,
        note,
        ...(decision !== undefined && { decision }),
      },
      by === 'cli' ? CLI_ORIGIN : by.origin,
    );
    return item;
  }

  /**
   * Ends the held payment as decided. Done already in the same way (a retry after the item's own
   * write failed) is fine; ended otherwise (another operator's opposite decision won) is refused.
   */
  async #decide(item: AttentionItem, decision: PayerDecision): Promise<void> {
    const cause = decision === 'accept' ? 'payer_accepted' : 'payer_declined';
    try {
      await this.#deps.complete.execute(item.transactionId, cause);
    } catch (error) {
      if (!(error instanceof GatewayError) || error.tag !== 'INVALID_STATE') throw error;
      const payment = await this.#deps.reads.find(item.transactionId, undefined);
      const wanted = decision === 'accept' ? 'SUCCESS' : 'FAILED';
      if (payment?.status === wanted && payment.payerCheck !== null) return;
      throw new GatewayError(
        'INVALID_STATE',
        `Payment ${item.transactionId} is not held for a decision any more (${payment?.status ?? 'gone'}); ` +
          'nothing changed.',
      );
    }
  }
}

function alreadyResolved(item: AttentionItem): GatewayError {
  return new GatewayError(
    'INVALID_STATE',
    `Attention item ${item.id} was already resolved by ${item.resolvedBy ?? 'someone'}; nothing changed.`,
  );
}

/** The list is the gateway's, not a merchant's: a merchant gets the same "not found" as for any page not theirs. */
function operatorsOnly(who: LoginSubject | undefined): void {
  if (who !== undefined && who.role !== 'operator') throw new GatewayError('NOT_FOUND', 'No such page.');
}
