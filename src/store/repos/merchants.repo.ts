// Merchants: SQL only, no rules.
import type { MerchantChanges } from '../../app/ports/store.ts';
import { sql, type Selectable } from 'kysely';
import type { MerchantsTable } from '../database.ts';
import { toBigInt, toNumber, toNumberOrNull } from '../database.ts';
import type { Db, Trx } from '../engine.ts';
import type { MerchantRecord } from '../../domain/merchant.ts';

function fromRow(row: Selectable<MerchantsTable>): MerchantRecord {
  return {
    id: row.id,
    name: row.name,
    passwordHash: row.password_hash,
    webhookSecretSealed: row.webhook_secret_enc,
    previousWebhookSecretSealed: row.previous_webhook_secret_enc,
    previousWebhookSecretExpiresAt: toNumberOrNull(row.previous_webhook_secret_expires_at),
    payoutCurrency: row.payout_currency,
    payoutAccount: row.payout_account,
    feeRatePpm: toBigInt(row.fee_rate_ppm),
    status: row.status,
    payerMismatch: row.payer_mismatch,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

export class MerchantsRepo {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(m: MerchantRecord, trx?: Trx): Promise<boolean> {
    const result = await (trx ?? this.#db)
      .insertInto('merchants')
      .values({
        id: m.id,
        name: m.name,
        password_hash: m.passwordHash,
        webhook_secret_enc: m.webhookSecretSealed,
        previous_webhook_secret_enc: m.previousWebhookSecretSealed,
        previous_webhook_secret_expires_at: m.previousWebhookSecretExpiresAt,
        payout_currency: m.payoutCurrency,
        payout_account: m.payoutAccount,
        fee_rate_ppm: m.feeRatePpm,
        status: m.status,
        payer_mismatch: m.payerMismatch,
        created_at: m.createdAt,
        updated_at: m.updatedAt,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findById(id: string, trx?: Trx): Promise<MerchantRecord | undefined> {
    const row = await (trx ?? this.#db).selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<MerchantRecord[]> {
    const rows = await this.#db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(fromRow);
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return toNumber(row.n as number | string);
  }

  /** A cheap fingerprint of the table: changes whenever a merchant is added or updated. */
  async changeMarker(): Promise<string> {
    const row = await this.#db
      .selectFrom('merchants')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.max('updated_at').as('latest')])
      .executeTakeFirstOrThrow();
    return `${String(row.n)}:${String(row.latest ?? 0)}`;
  }

  async update(id: string, patch: MerchantChanges, updatedAt: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('merchants')
      .set({
        ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
        ...(patch.webhookSecretSealed !== undefined && { webhook_secret_enc: patch.webhookSecretSealed }),
        ...(patch.previousWebhookSecretSealed !== undefined && {
          previous_webhook_secret_enc: patch.previousWebhookSecretSealed,
        }),
        ...(patch.previousWebhookSecretExpiresAt !== undefined && {
          previous_webhook_secret_expires_at: patch.previousWebhookSecretExpiresAt,
        }),
        ...(patch.status !== undefined && { status: patch.status }),
        ...(patch.feeRatePpm !== undefined && { fee_rate_ppm: patch.feeRatePpm }),
        ...(patch.payerMismatch !== undefined && { payer_mismatch: patch.payerMismatch }),
        // Strictly increasing even within one millisecond, so every instance's change marker moves.
        updated_at: sql<number>`case when updated_at >= ${updatedAt} then updated_at + 1 else ${updatedAt} end`,
      })
      .where('id', '=', id)
      .executeTakeFirst();
    if ((result.numUpdatedRows ?? 0n) === 0n) return false;
    return true;
  }
}
