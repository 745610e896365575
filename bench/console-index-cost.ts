// What the console's payment search costs the writes of initiations, on a fresh SQLite file,
// before and after migration 020 (docs/performance.md "Console search indexes"), alternating A/B
// for `--rounds` rounds on this (shared, noisy) machine.
// `node bench/console-index-cost.ts [--seconds 3] [--rounds 4]`.
//   before  schema up to 019: seven console indexes on transactions, kept in the initiation's commit
//   after   schema 020: the initiation queues its id; the search table is written behind, in
//           batches, and that work is counted too (the rate is rows searchable per second)
//   raw     the transactions INSERT, 100 rows per commit (after: one search batch per 1,000 rows)
//   group   the project's write path: TransactionsRepo.insertOrGet through the group commit with
//           16 writers in flight (like 16 connections initiating), one durable commit per group;
//           after: the gateway's catch-up every 250 ms beside them, and once more at the end
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ManageMerchants } from '../src/app/manage-merchants.ts';
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite } from '../src/store/sqlite/dialect.ts';
import { STORE_JOBS_MODULE, storeJobs } from '../src/store/sqlite/jobs.ts';
import { createJobRunner } from '../src/store/job-runner.ts';
import { MerchantsRepo } from '../src/store/repos/merchants.repo.ts';
import { ConsoleRepo } from '../src/store/repos/console.repo.ts';
import { openStoreEngine, type StoreEngine } from '../src/store/engine.ts';
import { migrateTo } from '../src/store/migrations/index.ts';
import { paymentSearchIndex } from '../src/store/payment-search-index.ts';
import { indexSeededPaymentsSqlite } from './seed-rows.ts';
import type { TransactionRecord } from '../src/domain/transaction.ts';

const BEFORE = '019-keyed-identifiers';
const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '4' } },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const PER_COMMIT = 100;

/** A fresh store at the schema under test (`after`: all migrations) with one merchant. */
async function freshStore(path: string, after: boolean): Promise<{ store: StoreEngine; merchantid: string }> {
  const store = openStoreEngine(`sqlite:${path}`);
  if (after) await store.migrate();
  else await migrateTo(store.db, BEFORE);
  const { merchantid } = await new ManageMerchants(
    new MerchantsRepo(store.db),
    new ConsoleRepo(store),
    Buffer.alloc(32, 7),
    0,
  ).create({
    name: 'Bench',
    payoutCurrency: 'THB',
    payoutAccount: '1234567890',
  });
  return { store, merchantid };
}

/** The search table's batch behind the commits (the same writes as repos/payment-search.repo.ts). */
function searchBatch(db: DatabaseSync): void {
  db.exec('begin immediate');
  indexSeededPaymentsSqlite(db);
  db.exec('commit');
}

async function phase(dir: string, file: string, after: boolean): Promise<number> {
  const path = join(dir, `${file}.db`);
  const { store, merchantid } = await freshStore(path, after);
  await store.close();
  const db = openSqlite({ path });
  const insert = db.prepare(
    'insert into transactions (id, merchant_id, trackid, request_hash, token, redirect_id, status, ' +
      'amount_minor, currency, payment_method, bill_country, bill_customerip, bill_email, return_url, ' +
      'server_url, payer_account_no, payer_account_name, payer_bank_code, lang, created_at, expires_at) ' +
      "values (?, ?, ?, ?, ?, ?, 'PROCESSING', ?, 'THB', 'THAI_DEBIT', 'TH', '203.150.10.24', ?, " +
      "'https://shop.example/return', 'https://shop.example/hook', '1234567890', 'Somchai', '014', 'en', ?, ?)",
  );
  let n = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    db.exec('begin immediate');
    for (let i = 0; i < PER_COMMIT; i++) {
      n += 1;
      const now = Date.now();
      insert.run(
        `${file}-${n}`,
        merchantid,
        `t-${n}`,
        'h'.repeat(43),
        `tok-${n}`,
        `red-${n}`.padEnd(44, 'x'), // a keyed id's length: outside 019's partial index
        (100 + (n % 5000)) * 10_000,
        `buyer${n % 100_000}@example.com`,
        now,
        now + 900_000,
      );
    }
    db.exec('commit');
    if (after && n % 1000 === 0) searchBatch(db);
  }
  if (after) searchBatch(db);
  const rate = n / ((performance.now() - start) / 1000);
  db.close();
  return rate;
}

const WRITERS = 16;

async function groupPhase(dir: string, file: string, after: boolean): Promise<number> {
  const { store, merchantid } = await freshStore(join(dir, `${file}.db`), after);
  const runJob = createJobRunner(store, storeJobs, STORE_JOBS_MODULE);
  const search = paymentSearchIndex(store.db, (limit) => runJob('indexPaymentSearch', limit));
  const catchUps = after ? setInterval(() => void search.catchUp(), 250) : undefined;
  let n = 0;
  const row = (): TransactionRecord => {
    n += 1;
    const now = Date.now();
    return {
      id: `${file}-${n}`,
      merchantId: merchantid,
      trackid: `t-${n}`,
      requestHash: 'h'.repeat(43),
      token: `tok-${file}-${n}`,
      redirectId: `red-${file}-${n}`.padEnd(44, 'x'),
      status: 'PROCESSING',
      errorCodeTag: null,
      errorText: null,
      amountMinor: BigInt((100 + (n % 5000)) * 10_000),
      currency: 'THB',
      paymentMethod: 'THAI_DEBIT',
      billCountry: 'TH',
      billCustomerIp: '203.150.10.24',
      billEmail: `buyer${n % 100_000}@example.com`,
      returnUrl: 'https://shop.example/return',
      serverUrl: 'https://shop.example/hook',
      payerAccountNo: '1234567890',
      payerAccountName: 'Somchai',
      payerBankCode: '014',
      productdesc: null,
      lang: 'en',
      returnUrlOnFailure: null,
      createdAt: now,
      expiresAt: now + 900_000,
      completedAt: null,
      refundedMinor: 0n,
      payerCheck: null,
    };
  };
  let rows = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (performance.now() < end) {
        const next = row();
        await runJob('insertTransaction', next);
        rows += 1;
      }
    }),
  );
  clearInterval(catchUps);
  if (after) await search.catchUp();
  const rate = rows / ((performance.now() - start) / 1000);
  await store.close();
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), 'gw-index-cost-'));
try {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const fmt = (xs: number[]) =>
    `${Math.round(sum(xs) / xs.length).toLocaleString('en-US')} rows/s ` +
    `(range ${Math.round(Math.min(...xs)).toLocaleString('en-US')}–` +
    `${Math.round(Math.max(...xs)).toLocaleString('en-US')})`;
  console.log(
    `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${ROUNDS} rounds × ${SECONDS} s per phase`,
  );
  for (const [mode, run] of [
    ['raw, 100 rows per commit', phase],
    [`group commit, ${WRITERS} writers`, groupPhase],
  ] as const) {
    const rates = { before: [] as number[], after: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order)
        rates[which].push(await run(dir, `${mode.slice(0, 3)}-${which}-${round}`, which === 'after'));
    }
    console.log(`${mode}:`);
    console.log(`  before 020 (7 console indexes on transactions): ${fmt(rates.before)}`);
    console.log(`  after 020 (search table behind the commit):     ${fmt(rates.after)}`);
    console.log(`  ratio after/before: ${(sum(rates.after) / sum(rates.before)).toFixed(2)}`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
