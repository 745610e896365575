// PostgreSQL drops the connection in the middle of a request (the backend serving it is terminated,
// as in a fast or immediate stop or a failover). Whatever statement was running — an autocommit
// INSERT, a read, or a statement inside a transaction whose ROLLBACK then fails too — the merchant
// gets 503 SERVICE_UNAVAILABLE in the API's error shape, never 500, and the next request works on a
// fresh connection (docs/operations.md "How faults answer").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testDialects } from '../support/dialects.ts';
import {
  addMerchant,
  initiationBody,
  post,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../support/test-gateway.ts';
import { assertErrorBody } from '../support/error-body.ts';

const postgres = (await testDialects()).find((c) => c.dialect === 'postgres') ?? {
  skip: 'TEST_DATABASE excludes postgres',
};

describe('PostgreSQL backend terminated mid-request', { skip: postgres.skip }, () => {
  let gw: TestGateway;
  let creds: MerchantCredentials;
  let admin: pg.Client;
  let database: string;
  let serial = 0;

  before(async () => {
    gw = await startTestGateway('postgres');
    creds = await addMerchant(gw);
    database = new URL(gw.testStore.databaseUrl).pathname.slice(1);
    admin = new pg.Client({ connectionString: gw.testStore.databaseUrl });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await gw?.close();
  });

  /**
   * Holds an exclusive lock on `table` so the gateway's statement waits on it, terminates the
   * waiting backend (the request is then mid-statement), and returns the gateway's answer.
   */
  async function terminatedMidRequest(
    table: string,
    request: () => Promise<{
      status: number;
      body: Record<string, any>;
      raw: string;
      headers: Record<string, unknown>;
    }>,
  ) {
    await admin.query('begin');
    await admin.query(`lock table ${table} in access exclusive mode`);
    const answer = request();
    try {
      let killed = 0;
      for (let i = 0; i < 100 && killed === 0; i++) {
        const { rows } = await admin.query(
          `select pg_terminate_backend(pid) as ok from pg_stat_activity ` +
            `where datname = $1 and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
          [database],
        );
        killed = rows.length;
        if (killed === 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(killed > 0, 'the request never waited on the lock');
    } finally {
      await admin.query('rollback');
    }
    return answer;
  }

  const unavailable = (shape: 'initiation' | 'status') => ({
    status: 503,
    code: '5003',
    tag: 'SERVICE_UNAVAILABLE',
    shape,
  });

  test('initiation (autocommit INSERT) → 503, then the same request succeeds', async () => {
    const body = initiationBody(creds, { trackid: `pg-loss-${++serial}` });
    const res = await terminatedMidRequest('transactions', () => post(gw, '/transaction/s2s', body));
    assertErrorBody(res, unavailable('initiation'));
    assert.ok(Number(res.headers['retry-after']) > 0);
    const again = await post(gw, '/transaction/s2s', body);
    assert.equal(again.status, 200, again.raw + gw.logs.text.slice(-3000));
  });

  test('status query (read) → 503', async () => {
    const res = await terminatedMidRequest('transactions', () =>
      post(gw, '/transaction/status', { ...creds, trackid: 'whatever' }),
    );
    assertErrorBody(res, unavailable('status'));
  });

  test(
    'sandbox completion (a statement inside a transaction; ' + 'its ROLLBACK fails too) → 503, then it completes',
    async () => {
      const created = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: `pg-loss-${++serial}` }));
      assert.equal(created.status, 200);
      const complete = () =>
        post(gw, '/sandbox/transaction/complete', { ...creds, transactionid: created.body.transactionid });
      const res = await terminatedMidRequest('transactions', complete);
      assertErrorBody(res, unavailable('status'));
      const retried = await complete();
      assert.equal(retried.status, 200, retried.raw);
      assert.equal(retried.body.responsecode, '0');
    },
  );

  test('balance query → 503', async () => {
    const res = await terminatedMidRequest('ledger_accounts', () =>
      post(gw, '/GatewayInstaPay/QueryPayoutBalance', creds),
    );
    assert.equal(res.status, 503, res.raw);
    assert.equal(res.body.responsecode, '5003');
    assert.equal(res.body.error_code_tag, 'SERVICE_UNAVAILABLE');
  });
});
