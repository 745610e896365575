// PostgreSQL's store jobs (store/job-runner.ts, limitOpenTransactions): read-modify-write
// transactions are limited to MAX_OPEN_TRANSACTIONS at once, so transactions waiting on a row
// lock can never take every pooled connection; single writes still go straight to the pool.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { postgresCase } from '../../support/dialects.ts';
import { createTestStore, type TestStore } from '../../support/test-store.ts';
import { limitOpenTransactions, MAX_OPEN_TRANSACTIONS } from '../../../src/store/job-runner.ts';

const postgres = await postgresCase();

describe('open-transaction limit [postgres]', { skip: postgres.skip }, () => {
  let t: TestStore;
  before(async () => {
    t = await createTestStore('postgres');
  });
  after(() => t?.cleanup());

  test(
    `at most ${MAX_OPEN_TRANSACTIONS} transactions are open at once; ` +
      `the rest wait and all finish; single writes are not held up`,
    async () => {
      const transaction = limitOpenTransactions(t.engine);
      let open = 0;
      let maxOpen = 0;
      const gates: Array<() => void> = [];
      const work = Array.from({ length: 10 }, (_, i) =>
        transaction(async (trx) => {
          open++;
          maxOpen = Math.max(maxOpen, open);
          await sql`select 1`.execute(trx);
          await new Promise<void>((resolve) => gates.push(resolve));
          open--;
          return i;
        }),
      );
      // Wait until the first transactions are inside and holding their connections.
      while (gates.length < MAX_OPEN_TRANSACTIONS) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(gates.length, MAX_OPEN_TRANSACTIONS, 'no more than the limit started');
      // A single write still gets a connection while the limit is reached.
      assert.deepEqual((await sql<{ one: number }>`select 1 as one`.execute(t.db)).rows, [{ one: 1 }]);
      let released = 0;
      while (released < 10) {
        if (gates.length > released) gates[released++]!();
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.deepEqual(await Promise.all(work), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      assert.equal(maxOpen, MAX_OPEN_TRANSACTIONS);
    },
  );
});
