// "A 200 means durably committed", across a crash: a gateway PROCESS is killed with SIGKILL in
// the middle of a stream of initiations and completions (SQLite: with writes on the writer
// thread and group commits in flight). Every initiation and completion answered 200 before the
// kill must be in the store afterwards, completions with their outbox event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStoreEngine } from '../../src/store/engine.ts';
import { testDialects } from '../support/dialects.ts';
import { createTestDatabase } from '../support/test-store.ts';
import { fixture } from '../support/test-gateway.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { createMerchant, gatewayEnv } from '../support/delivery-process.ts';

const CLIENTS = 32;
const KILL_AFTER = 300; // acknowledged initiations

for (const { dialect, skip } of await testDialects()) {
  describe(`acknowledged writes survive SIGKILL [${dialect}]`, { skip }, () => {
    let database: { databaseUrl: string; drop(): Promise<void> };
    let gateway: GatewayProcess | undefined;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      gateway?.child.kill('SIGKILL');
      await gateway?.exited;
      await database?.drop();
    });

    test('every initiation and completion answered 200 before a kill -9 is stored', async () => {
      // Notifications go to a closed loopback port: delivery fails and retries, which is fine here.
      const env = gatewayEnv(database.databaseUrl, { RATE_LIMIT_PER_MERCHANT_PER_SECOND: '1000000' });
      const creds = await createMerchant(env, 'Crash Initiations');
      gateway = await startGatewayProcess(env);
      const base = JSON.parse(fixture('string-amount.json', creds)) as Record<string, unknown>;
      const initiated: string[] = [];
      const completable: string[] = [];
      const completed: string[] = [];
      let n = 0;
      let turn = 0;
      let killed = false;
      const post = (path: string, body: unknown) =>
        fetch(`${gateway!.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      const client = async () => {
        while (!killed) {
          try {
            // One request in five completes a payment acknowledged earlier; the rest initiate.
            if (++turn % 5 === 0 && completable.length > 0) {
              const id = completable.shift()!;
              const res = await post('/sandbox/transaction/complete', {
                merchantid: creds.merchantid,
                password: creds.password,
                transactionid: id,
              });
              if (res.status === 200) completed.push(id);
              continue;
            }
            const trackid = `crash-${++n}`;
            const res = await post('/transaction/s2s', { ...base, trackid, serverUrl: 'http://127.0.0.1:9/hook' });
            const body = (await res.json()) as { transactionid?: string };
            if (res.status === 200 && body.transactionid) {
              initiated.push(trackid);
              completable.push(body.transactionid);
            }
            if (initiated.length >= KILL_AFTER && !killed) {
              killed = true;
              gateway!.child.kill('SIGKILL');
            }
          } catch {
            // the connection died with the process: that request was never acknowledged
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
      assert.equal((await gateway.exited).signal, 'SIGKILL');
      gateway = undefined;
      assert.ok(initiated.length >= KILL_AFTER);
      assert.ok(completed.length > 0, 'some completions were acknowledged before the kill');

      const store = openStoreEngine(database.databaseUrl);
      try {
        const stored = new Set(
          (
            await store.db
              .selectFrom('transactions')
              .select('trackid')
              .where('merchant_id', '=', creds.merchantid)
              .execute()
          ).map((r) => r.trackid),
        );
        const lost = initiated.filter((t) => !stored.has(t));
        assert.deepEqual(lost, [], 'acknowledged initiations missing after the crash');
        const rows = await store.db
          .selectFrom('transactions')
          .select(['id', 'status'])
          .where('id', 'in', completed)
          .execute();
        assert.equal(rows.length, completed.length);
        assert.ok(
          rows.every((r) => r.status !== 'PROCESSING'),
          'an acknowledged completion is final',
        );
        const events = await store.db
          .selectFrom('outbox_events')
          .select('transaction_id')
          .where('transaction_id', 'in', completed)
          .execute();
        assert.deepEqual(
          new Set(events.map((e) => e.transaction_id)),
          new Set(completed),
          'each acknowledged completion has its outbox event',
        );
      } finally {
        await store.close();
      }
    });
  });
}
