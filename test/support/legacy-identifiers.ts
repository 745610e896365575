// Payments whose token and redirect id are of the form issued before migration 019: random
// strings (48-bit creation time, then 208 / 144 random bits; 43 and 32 URL-safe characters),
// carrying nothing. Existing rows keep these; their pages must keep opening.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/store/engine.ts';
import { uuidv7 } from '../../src/domain/ids.ts';

/** A token and redirect id as the gateway made them before keyed ids. */
export function legacyIdentifiers(nowMs: number): { token: string; redirectId: string } {
  const token = Buffer.concat([Buffer.alloc(6), randomBytes(26)]);
  token.writeUIntBE(nowMs, 0, 6);
  const redirectId = Buffer.concat([Buffer.alloc(6), randomBytes(18)]);
  redirectId.writeUIntBE(nowMs, 0, 6);
  return { token: token.toString('base64url'), redirectId: redirectId.toString('base64url') };
}

/**
 * Stores a copy of transaction `fromId` as another payment with identifiers of the earlier form,
 * written straight into the table (as a gateway before migration 019 had). Returns its ids.
 */
export async function insertLegacyCopy(
  db: Db,
  fromId: string,
): Promise<{ id: string; token: string; redirectId: string; trackid: string }> {
  const row = await db.selectFrom('transactions').selectAll().where('id', '=', fromId).executeTakeFirstOrThrow();
  const now = Date.now();
  const { token, redirectId } = legacyIdentifiers(now);
  const copy = { ...row, id: uuidv7(now), trackid: `${row.trackid}-legacy`, token, redirect_id: redirectId };
  await db.insertInto('transactions').values(copy).execute();
  return { id: copy.id, token, redirectId, trackid: copy.trackid };
}
