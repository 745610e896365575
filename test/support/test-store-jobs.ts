// Store jobs used only by tests (test/store/store-jobs.test.ts, sqlite-writer.test.ts): small
// read-modify-write units whose outcome shows whether jobs lost updates, leaked a failed job's
// writes, or ran inside someone else's transaction. Loaded like the gateway's own jobs.
import { sql } from 'kysely';
import { GatewayError } from '../../src/domain/errors.ts';
import { dialectOf } from '../../src/store/dialect-of.ts';
import type { JobRegistry } from '../../src/store/job-runner.ts';
import type { Trx } from '../../src/store/engine.ts';

async function bumpFeeRate(trx: Trx, { merchantId }: { merchantId: string }): Promise<number> {
  let read = trx.selectFrom('merchants').select('fee_rate_ppm').where('id', '=', merchantId);
  if (dialectOf(trx) === 'postgres') read = read.forUpdate();
  const value = Number((await read.executeTakeFirstOrThrow()).fee_rate_ppm) + 1;
  await trx.updateTable('merchants').set({ fee_rate_ppm: value }).where('id', '=', merchantId).execute();
  return value;
}

export const storeJobs = {
  bumpFeeRate,
  bumpThenRefuse: async (trx: Trx, args: { merchantId: string }) => {
    await bumpFeeRate(trx, args);
    throw new GatewayError('INVALID_STATE', 'refused after writing');
  },
  insertMeta: async (trx: Trx, { name }: { name: string }) => {
    await sql`insert into gateway_meta (name, value, created_at) values (${name}, 'x', 1)`.execute(trx);
    return name;
  },
} satisfies JobRegistry;

export const TEST_STORE_JOBS_MODULE = new URL(import.meta.url);
