// Fills the store with N finished transactions of the bench merchant before the gateway starts,
// for "initiation with 1M existing rows": the indexes are then the size a busy gateway's are.
// Rows are SUCCESS (the expiry sweeper ignores them) with trackids 'seed-<n>', which the
// accounting leaves out. Generated inside the database, so seeding costs no client round trips.
import type { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { openSqlite } from '../src/store/sqlite/dialect.ts';

/**
 * Runs seeding SQL on a raw connection of the store at `databaseUrl` (node:sqlite or a pg client), closed afterwards.
 */
export async function withRawConnection(
  databaseUrl: string,
  work: { sqlite: (db: DatabaseSync) => void; postgres: (client: pg.Client) => Promise<void> },
): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = openSqlite({ path: databaseUrl.slice('sqlite:'.length) });
    try {
      work.sqlite(db);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await work.postgres(client);
  } finally {
    await client.end();
  }
}

/**
 * Seeded payments go into the console's search table at once, as migration 020 moves existing
 * payments, rather than through the queue their inserts filled: otherwise the gateway's indexer
 * would work through them during the measurement. A store from before migration 020 (a "before"
 * checkout measured with --gateway-dir) has neither table and nothing to do.
 */
const INDEX_SEEDED_PAYMENTS =
  'insert into payment_search (id, merchant_id, trackid, email, amount_minor, status, created_at) ' +
  'select t.id, t.merchant_id, t.trackid, lower(t.bill_email), t.amount_minor, t.status, t.created_at ' +
  'from payment_search_queue q join transactions t on t.id = q.transaction_id; ' +
  'delete from payment_search_queue';

export function indexSeededPaymentsSqlite(db: DatabaseSync): void {
  const queue = db.prepare("select 1 from sqlite_schema where name = 'payment_search_queue'").get();
  if (queue) db.exec(INDEX_SEEDED_PAYMENTS);
}

export async function indexSeededPaymentsPostgres(client: pg.Client): Promise<void> {
  const { rows } = await client.query("select to_regclass('payment_search_queue') is not null as present");
  if (!rows[0]?.present) return;
  await client.query(INDEX_SEEDED_PAYMENTS);
  // A million deleted queue rows would make every catch-up's look at the queue walk their index
  // entries until autovacuum came; migration 020 carries payments over without the queue at all.
  await client.query('vacuum payment_search_queue');
}

const COLUMNS =
  'id, merchant_id, trackid, request_hash, token, redirect_id, status, ' +
  'error_code_tag, error_text, amount_minor, currency, payment_method, ' +
  'bill_country, bill_customerip, bill_email, return_url, server_url, ' +
  'payer_account_no, payer_account_name, payer_bank_code, productdesc, lang, ' +
  'created_at, expires_at, completed_at';

export async function seedRows(databaseUrl: string, merchantId: string, count: number): Promise<void> {
  if (count <= 0) return;
  const start = Date.now() - 30 * 86_400_000;
  await withRawConnection(databaseUrl, {
    sqlite: (db) => {
      const insert = db.prepare(
        `with recursive n(i) as (select ? union all select i + 1 from n where i < ?) ` +
          `insert into transactions (${COLUMNS}) select ` +
          `printf('seed-%012d', i), ?, 'seed-' || i, hex(randomblob(32)), hex(randomblob(32)), ` +
          `hex(randomblob(24)), 'SUCCESS', null, null, 1505000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.150.10.24', 'somchai@example.co.th', 'https://shop.example.co.th/return', ` +
          `'https://shop.example.co.th/hook', '1234567890', 'Somchai', '014', null, 'en', ` +
          `? + i, ? + i + 900000, ? + i + 1000 from n`,
      );
      for (let from = 1; from <= count; from += 100_000) {
        const to = Math.min(count, from + 99_999);
        db.exec('begin');
        insert.run(from, to, merchantId, start, start, start);
        db.exec('commit');
      }
      db.exec('begin');
      indexSeededPaymentsSqlite(db);
      db.exec('commit');
    },
    postgres: async (client) => {
      await client.query(
        `insert into transactions (${COLUMNS}) select ` +
          `'seed-' || lpad(i::text, 12, '0'), $1, 'seed-' || i, ` +
          `md5(random()::text) || md5(random()::text), md5(random()::text) || md5(random()::text), ` +
          `md5(random()::text) || md5(i::text), 'SUCCESS', null, null, 1505000, 'THB', 'THAI_DEBIT', ` +
          `'TH', '203.150.10.24', 'somchai@example.co.th', 'https://shop.example.co.th/return', ` +
          `'https://shop.example.co.th/hook', '1234567890', 'Somchai', '014', null, 'en', ` +
          `$2::bigint + i, $2::bigint + i + 900000, $2::bigint + i + 1000 from generate_series(1, $3::int) as i`,
        [merchantId, start, count],
      );
      await indexSeededPaymentsPostgres(client);
      await client.query('analyze transactions');
    },
  });
}

/**
 * Where the dead-backlog events point: the discard port on loopback, where nothing listens (connection refused at
 * once).
 */
export const DEAD_ENDPOINT = 'http://127.0.0.1:9';

/**
 * For "initiation while a backlog exists": N finished transactions whose result
 * notifications are all due now and pending to DEAD_ENDPOINT, as after a merchant's endpoint died.
 * The gateway's delivery worker starts on them as soon as it is up, beside the measured initiations.
 */
export async function seedDeadBacklog(databaseUrl: string, merchantId: string, count: number): Promise<void> {
  if (count <= 0) return;
  const now = Date.now();
  const transactionValues = (id: string, trackid: string) =>
    `${id}, ?, ${trackid}, 'dead', 'dead-token-' || i, 'dead-redirect-' || i, ` +
    `'SUCCESS', null, null, 1505000, 'THB', 'THAI_DEBIT', ` +
    `'TH', '203.150.10.24', 'somchai@example.co.th', 'https://shop.example.co.th/return', ` +
    `'${DEAD_ENDPOINT}/hook', '1234567890', 'Somchai', '014', null, 'en', ` +
    `cast(? as bigint), cast(? as bigint), cast(? as bigint)`;
  const events = (id: string, transactionId: string) =>
    `insert into outbox_events (id, transaction_id, merchant_id, target_url, ` +
    `origin, payload, status, attempts, next_attempt_at, series, created_at) ` +
    `select ${id}, ${transactionId}, ?, '${DEAD_ENDPOINT}/hook', '${DEAD_ENDPOINT}', ` +
    `'{"type":"valid","result":"Successful"}', 'pending', 0, cast(? as bigint), 1, cast(? as bigint)`;
  await withRawConnection(databaseUrl, {
    sqlite: (db) => {
      const n = 'with recursive n(i) as (select 1 union all select i + 1 from n where i < ?) ';
      db.exec('begin');
      db.prepare(
        `${n}insert into transactions (${COLUMNS}) ` +
          `select ${transactionValues("printf('dead-%012d', i)", "'dead-' || i")} from n`,
      ).run(count, merchantId, now, now, now);
      db.prepare(`${n}${events("printf('evt-dead-%012d', i)", "printf('dead-%012d', i)")} from n`).run(
        count,
        merchantId,
        now,
        now,
      );
      indexSeededPaymentsSqlite(db);
      db.exec('commit');
    },
    postgres: async (client) => {
      const series = ' from generate_series(1, $1::int) as i';
      // The same statements with numbered parameters ($1 is the count).
      const numbered = (text: string) => {
        let k = 1;
        return text.replace(/\?/g, () => `$${++k}`);
      };
      await client.query(
        `insert into transactions (${COLUMNS}) ` +
          `select ${numbered(transactionValues("'dead-' || lpad(i::text, 12, '0')", "'dead-' || i"))}${series}`,
        [count, merchantId, now, now, now],
      );
      await client.query(
        `${numbered(events("'evt-dead-' || lpad(i::text, 12, '0')", "'dead-' || lpad(i::text, 12, '0')"))}${series}`,
        [count, merchantId, now, now],
      );
      await indexSeededPaymentsPostgres(client);
      await client.query('analyze outbox_events');
    },
  });
}
