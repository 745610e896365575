// The gateway_meta table: named facts about the deployment, each written once.
import type { Db } from '../engine.ts';

export class GatewayMetaRepo {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async get(name: string): Promise<string | undefined> {
    const row = await this.#db.selectFrom('gateway_meta').select('value').where('name', '=', name).executeTakeFirst();
    return row?.value;
  }

  /** Stores `value` unless the name already has one (first writer wins); returns the stored value. */
  async getOrInsert(name: string, value: string, now: number): Promise<string> {
    await this.#db
      .insertInto('gateway_meta')
      .values({ name, value, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const stored = await this.get(name);
    if (stored === undefined) throw new Error(`gateway_meta row '${name}' vanished after insert`);
    return stored;
  }

  /** Overwrites `name` (for facts that change, such as the readiness write probe's time). */
  async put(name: string, value: string, now: number): Promise<void> {
    await this.#db
      .insertInto('gateway_meta')
      .values({ name, value, created_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value, created_at: now }))
      .execute();
  }
}
