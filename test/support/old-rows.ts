// Rows as a gateway wrote them before a migration under test: written in SQL against the schema
// of that time (migrateTo), so the migration's tests start from data it must carry over.
import { sql, type Kysely } from 'kysely';

/** Merchant `m1` with the columns every schema since migration 001 has (later ones take their defaults). */
export async function insertOldMerchant(db: Kysely<any>, now: number): Promise<void> {
  await db
    .insertInto('merchants')
    .values({
      id: 'm1',
      name: 'Old Shop',
      password_hash: 'x',
      webhook_secret_enc: 'x',
      previous_webhook_secret_enc: null,
      previous_webhook_secret_expires_at: null,
      payout_currency: 'THB',
      payout_account: '4111111111119012',
      fee_rate_ppm: 0,
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** Payment `t1` of `m1`: 100.00 THB, SUCCESS at `now`; `extra` adds the columns of the schema under test. */
export async function insertOldPayment(db: Kysely<any>, now: number, extra: Record<string, unknown>): Promise<void> {
  const tx = {
    id: 't1',
    merchant_id: 'm1',
    trackid: 'old-1',
    request_hash: 'h',
    token: 'tok1',
    redirect_id: 'r1',
    status: 'SUCCESS',
    amount_minor: 1_000_000,
    currency: 'THB',
    payment_method: 'THAI_DEBIT',
    bill_country: 'TH',
    bill_customerip: '203.0.113.1',
    bill_email: 'a@b.co',
    return_url: 'https://s.example/r',
    server_url: 'https://s.example/n',
    payer_account_no: '1234567890',
    payer_account_name: 'A',
    payer_bank_code: '014',
    created_at: now,
    expires_at: now + 1,
    completed_at: now,
    ...extra,
  };
  await sql`insert into transactions (${sql.join(Object.keys(tx).map((k) => sql.ref(k)))})
    values (${sql.join(Object.values(tx))})`.execute(db);
}
