// PostgreSQL: a completion set's write statement reaches its transactions by primary key, however
// many payments are open. Its UPDATE also says `status = 'PROCESSING'`; when the statistics say
// that open payments are rare (the steady state: most rows are final) and a burst has since opened
// thousands, the planner preferred an index that leads with status (transactions_processing_expiry)
// and walked every open payment's entry for each set: 2,000 buffer reads per set and 9.6 ms instead
// of 1.9 ms under the bench's mixed load (docs/performance.md "Completions"). The plan is read from
// EXPLAIN, not timed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postgresCase } from '../../support/dialects.ts';
import { addMerchant, initiationBody, post, startTestGateway, type TestGateway } from '../../support/test-gateway.ts';
import { completionsWriteQuery, readForCompletions } from '../../../src/store/postgres/completion-sets.repo.ts';
import { planCompletion } from '../../../src/domain/completion.ts';
import { newEventId } from '../../../src/domain/ids.ts';

/** Open payments beside the ones completed. */
const OPEN_PAYMENTS = 5000;

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

const postgres = await postgresCase();

describe(
  'completion set write plan [postgres]',
  { skip: postgres ? postgres.skip : 'TEST_DATABASE excludes postgres' },
  () => {
    let gw: TestGateway;
    let pool: pg.Pool;
    const ids: string[] = [];

    before(async () => {
      gw = await startTestGateway('postgres');
      const creds = await addMerchant(gw);
      for (let i = 0; i < 3; i++) {
        const res = await post(gw, '/transaction/s2s', initiationBody(creds, { trackid: `plan-${i}` }));
        assert.equal(res.status, 200, res.raw);
        ids.push(res.body.transactionid as string);
      }
      pool = new pg.Pool({ connectionString: gw.testStore.databaseUrl, max: 1 });
      // The database is dropped WITH (FORCE) at the end: a connection still closing then hears
      // "terminating connection due to administrator command", which must not crash the run.
      pool.on('error', () => {});
      pool.on('connect', (client) => client.on('error', () => {}));
      // Copies of the first payment under new ids, final when the statistics are taken, then
      // opened: a burst of open payments the statistics have not seen yet.
      const columns = (
        await pool.query<{ column_name: string }>(
          `select column_name from information_schema.columns ` +
            `where table_name = 'transactions' order by ordinal_position`,
        )
      ).rows.map((r) => r.column_name);
      const unique: Record<string, string> = {
        id: `t.id || '-' || g`,
        trackid: `'bulk-' || g`,
        token: `t.token || '-' || g`,
        redirect_id: `t.redirect_id || '-' || g`,
        status: `'SUCCESS'`,
      };
      const select = columns.map((c) => unique[c] ?? `t.${c}`).join(', ');
      await pool.query(
        `insert into transactions (${columns.join(', ')}) select ${select} ` +
          `from transactions t, generate_series(1, ${OPEN_PAYMENTS}) g where t.id = $1`,
        [ids[0]],
      );
      await pool.query('analyze transactions');
      await pool.query(`update transactions set status = 'PROCESSING' where trackid like 'bulk-%'`);
    });
    after(async () => {
      await pool?.end();
      await gw?.close();
    });

    test(
      `the UPDATE of a set reads its transactions through the ` +
        `primary key, with ${OPEN_PAYMENTS} other payments open`,
      async () => {
        const open = await pool.query<{ n: string }>(
          `select count(*) as n from transactions where status = 'PROCESSING'`,
        );
        assert.equal(Number(open.rows[0]!.n), OPEN_PAYMENTS + ids.length);
        const rows = await readForCompletions(pool, ids);
        const at = gw.clock.now;
        const query = completionsWriteQuery(
          ids.map((id) =>
            planCompletion(rows.get(id), { transactionId: id, cause: 'sandbox', eventId: newEventId(), at }),
          ),
        );
        const client = await pool.connect();
        let plan: PlanNode;
        try {
          await client.query('begin');
          const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>({
            text: `explain (format json) ${query.text}`,
            values: query.values,
          });
          plan = explained.rows[0]!['QUERY PLAN'][0]!.Plan;
        } finally {
          await client.query('rollback');
          client.release();
        }
        const update = [...walk(plan)].find(
          (n) => n['Node Type'] === 'ModifyTable' && n['Relation Name'] === 'transactions',
        );
        assert.ok(update, 'the plan has the UPDATE of transactions');
        const indexes = new Set([...walk(update)].flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])));
        const scansTable = [...walk(update)].some(
          (n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'transactions',
        );
        assert.equal(scansTable, false, 'no sequential scan of transactions');
        assert.deepEqual([...indexes], ['transactions_pkey'], `indexes the UPDATE reads: ${[...indexes].join(', ')}`);
      },
    );
  },
);
