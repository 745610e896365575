// The needs-attention list (docs/console.md "Needs attention"): payments the live use cases could
// not settle by themselves (app/processor/sync-payment.ts raises them: money paid at the processor
// after the payment ended and not voided, an amount that does not match). Operators read it and
// mark an item resolved with a note saying what they did; the console's page and the CLI's
// `attention` commands both go through here, so both write the same row and the same audit entry.
import { GatewayError, invalidField, missingField } from '../../domain/errors.ts';
import type { AttentionItem } from '../../domain/processor-attempt.ts';
import type { TransactionRecord } from '../../domain/transaction.ts';
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

export type ConsoleAttentionDeps = {
  attention: Pick<AttentionStore, 'list' | 'find' | 'resolve'>;
  reads: Pick<ConsoleReads, 'find'>;
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
   * NOT_FOUND for an unknown id; INVALID_STATE, with nothing written, for one resolved already
   * (a second click, another operator first).
   */
  async resolve(input: { id: string; note: string; by: AttentionResolver }): Promise<AttentionItem> {
    const { by } = input;
    if (by !== 'cli') operatorsOnly(by.who);
    const note = input.note.trim();
    if (note === '') throw missingField('note');
    if (note.length > MAX_NOTE_LENGTH) throw invalidField('note', `it must be at most ${MAX_NOTE_LENGTH} characters`);
    const resolvedBy = by === 'cli' ? 'cli' : `${by.who.role}:${by.who.name}`;
    const at = this.#deps.now();
    if (!(await this.#deps.attention.resolve(input.id, resolvedBy, note, at))) {
      const found = await this.#deps.attention.find(input.id);
      if (!found) throw new GatewayError('NOT_FOUND', `No attention item with id '${input.id}'.`);
      throw new GatewayError(
        'INVALID_STATE',
        `Attention item ${found.id} was already resolved by ${found.resolvedBy ?? 'someone'}; nothing changed.`,
      );
    }
    this.#deps.count?.resolved();
    const item = (await this.#deps.attention.find(input.id))!;
    await this.#deps.audit.record(
      by === 'cli' ? CLI_ACTOR : auditActorOf(by.who),
      'attention.resolve',
      item.id,
      { transactionid: item.transactionId, kind: item.kind, reference: item.reference, note },
      by === 'cli' ? CLI_ORIGIN : by.origin,
    );
    return item;
  }
}

/** The list is the gateway's, not a merchant's: a merchant gets the same "not found" as for any page not theirs. */
function operatorsOnly(who: LoginSubject | undefined): void {
  if (who !== undefined && who.role !== 'operator') throw new GatewayError('NOT_FOUND', 'No such page.');
}
