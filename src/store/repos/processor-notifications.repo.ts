// Inbound processor notifications and the needs-attention list (migration 015): SQL only.
import type { Selectable } from 'kysely';
import type { AttentionStore, ProcessorNotificationStore } from '../../app/ports/processor-store.ts';
import type { AttentionItem, AttentionKind, ProcessorNotification } from '../../domain/processor-attempt.ts';
import { toBigInt, toNumber, toNumberOrNull, type AttentionItemsTable } from '../database.ts';
import type { Db } from '../engine.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export class ProcessorNotificationsRepo implements ProcessorNotificationStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async record(n: ProcessorNotification, dedupeKey: string | null): Promise<{ duplicate: boolean }> {
    const row = {
      id: n.id,
      connector: n.connector,
      received_at: n.receivedAt,
      source_ip: n.sourceIp,
      body: n.body,
      reference: n.reference,
      processor_txn_no: n.processorTxnNo,
      transaction_id: n.transactionId,
      outcome: n.outcome,
      dedupe_key: dedupeKey,
    };
    try {
      await this.#db.insertInto('processor_notifications').values(row).execute();
      return { duplicate: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Logged all the same, without the key, so the log shows every delivery.
      await this.#db
        .insertInto('processor_notifications')
        .values({ ...row, dedupe_key: null, outcome: 'duplicate' })
        .execute();
      return { duplicate: true };
    }
  }

  async forTransaction(transactionId: string): Promise<ProcessorNotification[]> {
    const rows = await this.#db
      .selectFrom('processor_notifications')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .orderBy('received_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      connector: r.connector,
      receivedAt: toNumber(r.received_at),
      sourceIp: r.source_ip,
      body: r.body,
      reference: r.reference,
      processorTxnNo: r.processor_txn_no,
      transactionId: r.transaction_id,
      outcome: r.outcome,
    }));
  }
}

function attentionFromRow(r: Selectable<AttentionItemsTable>): AttentionItem {
  return {
    id: r.id,
    transactionId: r.transaction_id,
    kind: r.kind as AttentionKind,
    detail: r.detail,
    amountMinor: r.amount_minor === null ? null : toBigInt(r.amount_minor),
    reference: r.reference,
    createdAt: toNumber(r.created_at),
    resolvedAt: toNumberOrNull(r.resolved_at),
    resolvedBy: r.resolved_by,
    resolution: r.resolution,
  };
}

export class AttentionRepo implements AttentionStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async raise(item: AttentionItem): Promise<boolean> {
    try {
      await this.#db
        .insertInto('attention_items')
        .values({
          id: item.id,
          transaction_id: item.transactionId,
          kind: item.kind,
          detail: item.detail,
          amount_minor: item.amountMinor,
          reference: item.reference,
          created_at: item.createdAt,
          resolved_at: null,
          resolved_by: null,
          resolution: null,
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async list(options: { open: boolean; limit: number }): Promise<AttentionItem[]> {
    const rows = await this.#db
      .selectFrom('attention_items')
      .selectAll()
      .where('resolved_at', options.open ? 'is' : 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .execute();
    return rows.map(attentionFromRow);
  }

  async find(id: string): Promise<AttentionItem | undefined> {
    const row = await this.#db.selectFrom('attention_items').selectAll().where('id', '=', id).executeTakeFirst();
    return row && attentionFromRow(row);
  }

  async countOpen(): Promise<number> {
    const row = await this.#db
      .selectFrom('attention_items')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('resolved_at', 'is', null)
      .executeTakeFirstOrThrow();
    return toNumber(row.n as number | string);
  }

  async forTransaction(transactionId: string): Promise<AttentionItem[]> {
    const rows = await this.#db
      .selectFrom('attention_items')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .orderBy('created_at')
      .execute();
    return rows.map(attentionFromRow);
  }

  async resolve(id: string, by: string, resolution: string, at: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('attention_items')
      // A note of at most 500 characters, after a payer decision's words (app/console/attention.ts).
      .set({ resolved_at: at, resolved_by: by, resolution: resolution.slice(0, 600) })
      .where('id', '=', id)
      .where('resolved_at', 'is', null)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) > 0n;
  }
}
