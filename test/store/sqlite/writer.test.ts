// The SQLite store's writer thread and read connection (src/store/dialects/sqlite.ts): what
// travels together, what a failing statement takes down (only itself), read-your-writes on the
// main thread's read connection, autocommit writes kept out of open transactions, closing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { sql } from 'kysely';
import { createJobRunner } from '../../../src/store/job-runner.ts';
import { storeJobs, TEST_STORE_JOBS_MODULE } from '../../support/test-store-jobs.ts';
import { isStoreUnavailable, openStoreEngine, type StoreEngine } from '../../../src/store/engine.ts';
import { createTestStore, type TestStore } from '../../support/test-store.ts';

const MERCHANT = {
  name: 'Writer Test',
  password_hash: 'h',
  webhook_secret_enc: 's',
  previous_webhook_secret_enc: null,
  previous_webhook_secret_expires_at: null,
  payout_currency: 'THB',
  payout_account: '1234',
  fee_rate_ppm: 0,
  status: 'active' as const,
  created_at: 1,
  updated_at: 1,
};

function insertMerchant(db: StoreEngine['db'], id: string) {
  return db
    .insertInto('merchants')
    .values({ ...MERCHANT, id })
    .execute();
}

describe('SQLite writer thread', () => {
  let ts: TestStore;
  let store: StoreEngine;
  before(async () => {
    ts = await createTestStore('sqlite');
    store = ts.engine;
  });
  after(() => ts?.cleanup());

  test('40 store jobs issued together are one message to the writer thread and commit together', async () => {
    const runJob = createJobRunner(store, storeJobs, TEST_STORE_JOBS_MODULE);
    const before = store.sqliteWriterStats()!;
    const names = await Promise.all(
      Array.from({ length: 40 }, (_, i) => runJob('insertMeta', { name: `job-batch-${i}` })),
    );
    const after = store.sqliteWriterStats()!;
    assert.equal(names.length, 40);
    assert.equal(after.jobs - before.jobs, 40);
    // The jobs of one turn travel together; BEGIN, the savepoints and COMMIT run on the thread.
    assert.equal(after.messages - before.messages, 1);
    assert.equal(after.statements - before.statements, 0);
    const rows = await store.db
      .selectFrom('gateway_meta')
      .select('name')
      .where('name', 'like', 'job-batch-%')
      .execute();
    assert.equal(rows.length, 40);
  });

  test(
    'jobs issued by separate callbacks of one event-loop ' + 'turn (as requests read in one poll) are one message',
    async () => {
      const runJob = createJobRunner(store, storeJobs, TEST_STORE_JOBS_MODULE);
      const before = store.sqliteWriterStats()!;
      // 20 immediates queued together run in one check phase, each its own callback with the
      // microtask and nextTick queues drained after it: like 20 requests whose bytes one poll phase
      // read. (Timers due together can be split over two turns on a busy machine; immediates cannot.)
      const names = await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) =>
            new Promise<string>((resolve, reject) =>
              setImmediate(() => runJob('insertMeta', { name: `job-turn-${i}` }).then(resolve, reject)),
            ),
        ),
      );
      const after = store.sqliteWriterStats()!;
      assert.equal(names.length, 20);
      assert.equal(after.jobs - before.jobs, 20);
      assert.equal(after.messages - before.messages, 1);
      const rows = await store.db
        .selectFrom('gateway_meta')
        .select('name')
        .where('name', 'like', 'job-turn-%')
        .execute();
      assert.equal(rows.length, 20);
    },
  );

  test('a job sent while an interactive transaction is open waits for it, and is not rolled back with it', async () => {
    const runJob = createJobRunner(store, storeJobs, TEST_STORE_JOBS_MODULE);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let insideWrote!: () => void;
    const wrote = new Promise<void>((resolve) => (insideWrote = resolve));
    const interactive = store
      .transaction(async (trx) => {
        await insertMerchant(trx, 'm-rolled-back');
        insideWrote();
        await gate;
        throw new Error('roll it back');
      })
      .catch((error: Error) => error.message);
    await wrote;
    let jobDone = false;
    const job = runJob('insertMeta', { name: 'job-during-interactive' }).then((name) => ((jobDone = true), name));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(jobDone, false, 'the job waits while the interactive transaction is open');
    release();
    assert.equal(await interactive, 'roll it back');
    assert.equal(await job, 'job-during-interactive');
    assert.equal(
      (await store.db.selectFrom('gateway_meta').select('name').where('name', '=', 'job-during-interactive').execute())
        .length,
      1,
    );
    assert.equal(
      (await store.db.selectFrom('merchants').select('id').where('id', '=', 'm-rolled-back').execute()).length,
      0,
    );
  });

  test('a failing statement fails only itself, with node:sqlite’s message, and its neighbours still run', async () => {
    await insertMerchant(store.db, 'm-dup');
    const results = await store.transaction(async (trx) =>
      Promise.allSettled([insertMerchant(trx, 'm-ok-1'), insertMerchant(trx, 'm-dup'), insertMerchant(trx, 'm-ok-2')]),
    );
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[2].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.match(
      String((results[1] as PromiseRejectedResult).reason.message),
      /UNIQUE constraint failed: merchants\.id/,
    );
    const ids = (await store.db.selectFrom('merchants').select('id').where('id', 'in', ['m-ok-1', 'm-ok-2']).execute())
      .map((r) => r.id)
      .sort();
    assert.deepEqual(ids, ['m-ok-1', 'm-ok-2']);
  });

  test(
    'read-your-writes: a plain read right after an acknowledged ' +
      'write sees it (read connection on the main thread)',
    async () => {
      const before = store.sqliteWriterStats()!;
      for (let i = 0; i < 100; i++) {
        await insertMerchant(store.db, `m-ryw-${i}`);
        const row = await store.db
          .selectFrom('merchants')
          .select('id')
          .where('id', '=', `m-ryw-${i}`)
          .executeTakeFirst();
        assert.equal(row?.id, `m-ryw-${i}`);
      }
      // The reads did not go to the writer thread: one statement per write only.
      assert.equal(store.sqliteWriterStats()!.statements - before.statements, 100);
    },
  );

  test(
    'an autocommit write issued while a transaction is open ' + 'waits for it and is not rolled back with it',
    async () => {
      let outside: Promise<unknown> | undefined;
      await assert.rejects(
        store.transaction(async (trx) => {
          await insertMerchant(trx, 'm-rolled-back');
          outside = insertMerchant(store.db, 'm-outside');
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('abort this transaction');
        }),
        /abort this transaction/,
      );
      await outside;
      const ids = (
        await store.db.selectFrom('merchants').select('id').where('id', 'in', ['m-rolled-back', 'm-outside']).execute()
      ).map((r) => r.id);
      assert.deepEqual(ids, ['m-outside']);
    },
  );

  test('reads inside a transaction see that transaction’s own uncommitted writes', async () => {
    await store.transaction(async (trx) => {
      await insertMerchant(trx, 'm-own');
      const row = await trx.selectFrom('merchants').select('id').where('id', '=', 'm-own').executeTakeFirst();
      assert.equal(row?.id, 'm-own');
    });
  });

  test('a query with a CTE goes to the writer (it could hide a write)', async () => {
    const before = store.sqliteWriterStats()!;
    const rows = await store.db
      .with('m', (db) => db.selectFrom('merchants').select('id').where('id', '=', 'm-own'))
      .selectFrom('m')
      .selectAll()
      .execute();
    assert.deepEqual(rows, [{ id: 'm-own' }]);
    assert.equal(store.sqliteWriterStats()!.statements - before.statements, 1);
  });

  test(
    'close waits for a transaction in progress; ' + 'later calls fail as "store unavailable" (503), not as a bug',
    async () => {
      const own = await createTestStore('sqlite');
      let closing: Promise<void> | undefined;
      await own.engine.transaction(async (trx) => {
        await insertMerchant(trx, 'm-before-close');
        closing = own.store.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        await insertMerchant(trx, 'm-during-close');
      });
      await closing;
      const error = await sql`select 1`.execute(own.db).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isStoreUnavailable(error), String(error));
      const again = openStoreEngine(own.databaseUrl);
      const ids = (await again.db.selectFrom('merchants').select('id').orderBy('id').execute()).map((r) => r.id);
      await again.close();
      await own.cleanup();
      assert.deepEqual(ids, ['m-before-close', 'm-during-close']);
    },
  );
});

describe('SQLite writer thread and process lifetime', () => {
  test('an idle store does not keep the process alive; a pending write does until it is committed', () => {
    const script =
      `
      import { openStoreEngine } from ${JSON.stringify(new URL('../../../src/store/engine.ts', import.meta.url).href)};
      import { mkdtempSync } from 'node:fs';
      import { join } from 'node:path';
      import { tmpdir } from 'node:os';
      const store = openStoreEngine('sqlite:' + join(mkdtempSync(join(tmpdir(), 'gw-writer-')), 'g.db'));
      await store.migrate();
      store.db.insertInto('merchants').values(${JSON.stringify({ ...MERCHANT, id: 'm-exit' })})` +
      `.execute().then(() => console.log('committed'));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(child.signal, null, 'the process had to be killed: the writer thread kept it alive');
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'committed');
  });
});
