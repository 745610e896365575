// Micro-benchmark of durable SQLite commits (WAL, synchronous=FULL), all writing the real
// transactions row into the real schema, each phase on a fresh file:
//   raw-1   node:sqlite, one INSERT per commit               (the storage baseline)
//   raw-10  node:sqlite, ten INSERTs per commit              (what batching can buy)
//   store-1 the project's store: one store.transaction() per row, awaited one at a time
//   group   the project's store through its store job `insertTransaction` (writer-thread group commit),
//           N writers in flight
// It shows whether the group committer turns concurrency into rows per fsync.
import { join } from 'node:path';
import type { Insertable } from 'kysely';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import type { TransactionsTable } from '../src/store/database.ts';
import { ManageMerchants } from '../src/app/manage-merchants.ts';
import { openSqlite } from '../src/store/sqlite/dialect.ts';
import { STORE_JOBS_MODULE, storeJobs } from '../src/store/sqlite/jobs.ts';
import { createJobRunner } from '../src/store/job-runner.ts';
import { MerchantsRepo } from '../src/store/repos/merchants.repo.ts';
import { ConsoleRepo } from '../src/store/repos/console.repo.ts';
import { openStoreEngine, type StoreEngine } from '../src/store/engine.ts';
import { TransactionsRepo } from '../src/store/repos/transactions.repo.ts';
import { type TransactionRecord } from '../src/domain/transaction.ts';

export type MicroResult = {
  name: string;
  what: string;
  rows: number;
  seconds: number;
  rowsPerS: number;
  commits: number;
  storedRows: number;
};

const MERCHANT_KEY = Buffer.alloc(32, 7);

/** A full transactions row; counters keep every unique column unique without costing randomness. */
function rowFactory(merchantId: string, runTag: string): () => TransactionRecord {
  let n = 0;
  return () => {
    n += 1;
    const now = Date.now();
    return {
      id: `${runTag}-id-${n}`,
      merchantId,
      trackid: `${runTag}-${n}`,
      requestHash: 'h'.repeat(43),
      token: `${runTag}-token-${n}`,
      redirectId: `${runTag}-redirect-${n}`,
      status: 'PROCESSING',
      errorCodeTag: null,
      errorText: null,
      amountMinor: 1_505_000n,
      currency: 'THB',
      paymentMethod: 'THAI_DEBIT',
      billCountry: 'TH',
      billCustomerIp: '203.150.10.24',
      billEmail: 'somchai@example.co.th',
      returnUrl: 'https://shop.example.co.th/checkout/order-received/4711/?key=wc_order_AbC123xyz',
      serverUrl: 'https://shop.example.co.th/wc-api/key2pay_thai_debit',
      payerAccountNo: '1234567890',
      payerAccountName: 'สมชาย ใจดี',
      payerBankCode: '014',
      productdesc: 'Order #4711 from Example Shop',
      lang: 'en',
      createdAt: now,
      expiresAt: now + 900_000,
      completedAt: null,
      returnUrlOnFailure: null,
      refundedMinor: 0n,
      payerCheck: null,
    };
  };
}

/** A migrated store on a fresh file with one merchant; counts the transactions it commits. */
async function freshStore(
  dir: string,
  file: string,
): Promise<{ store: StoreEngine; merchantId: string; path: string; commits: () => number }> {
  const path = join(dir, `${file}.db`);
  const inner = openStoreEngine(`sqlite:${path}`);
  await inner.migrate();
  const issued = await new ManageMerchants(new MerchantsRepo(inner.db), new ConsoleRepo(inner), MERCHANT_KEY, 0).create(
    {
      name: 'Micro',
      payoutCurrency: 'THB',
      payoutAccount: '1234567890',
    },
  );
  let commits = 0;
  const store: StoreEngine = {
    ...inner,
    transaction(work) {
      commits += 1;
      return inner.transaction(work);
    },
  };
  return { store, merchantId: issued.merchantid, path, commits: () => commits };
}

function countRows(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number((db.prepare('select count(*) as n from transactions').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

async function rawPhase(
  dir: string,
  file: string,
  name: string,
  perCommit: number,
  seconds: number,
): Promise<MicroResult> {
  const { store, merchantId, path } = await freshStore(dir, file);
  const nextRow = rowFactory(merchantId, file);
  // The exact SQL the repository sends, prepared once: this phase measures SQLite, not Kysely.
  const template = store.db
    .insertInto('transactions')
    .values(sampleValues(nextRow()))
    .onConflict((oc) => oc.columns(['merchant_id', 'trackid']).doNothing())
    .compile();
  await store.close();
  const db = openSqlite({ path });
  const insert = db.prepare(template.sql);
  let rows = 0;
  let commits = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    db.exec('begin immediate');
    for (let i = 0; i < perCommit; i++) {
      insert.run(...(Object.values(sampleValues(nextRow())) as never[]));
      rows += 1;
    }
    db.exec('commit');
    commits += 1;
  }
  const elapsed = (performance.now() - start) / 1000;
  db.close();
  return {
    name,
    what: `node:sqlite, ${perCommit} row${perCommit > 1 ? 's' : ''} per commit`,
    rows,
    seconds: elapsed,
    rowsPerS: rows / elapsed,
    commits,
    storedRows: countRows(path),
  };
}

/** Column values in the order Kysely compiles them (the order of this object's keys). */
function sampleValues(t: TransactionRecord): Insertable<TransactionsTable> {
  return {
    id: t.id,
    merchant_id: t.merchantId,
    trackid: t.trackid,
    request_hash: t.requestHash,
    token: t.token,
    redirect_id: t.redirectId,
    status: t.status,
    error_code_tag: t.errorCodeTag,
    error_text: t.errorText,
    amount_minor: t.amountMinor,
    currency: t.currency,
    payment_method: t.paymentMethod,
    bill_country: t.billCountry,
    bill_customerip: t.billCustomerIp,
    bill_email: t.billEmail,
    return_url: t.returnUrl,
    server_url: t.serverUrl,
    payer_account_no: t.payerAccountNo,
    payer_account_name: t.payerAccountName,
    payer_bank_code: t.payerBankCode,
    productdesc: t.productdesc,
    lang: t.lang,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    completed_at: t.completedAt,
    return_url_on_failure: t.returnUrlOnFailure,
    refunded_minor: t.refundedMinor,
  };
}

async function storeSinglePhase(dir: string, file: string, seconds: number): Promise<MicroResult> {
  const { store, merchantId, path, commits } = await freshStore(dir, file);
  const repo = new TransactionsRepo(store.db);
  const nextRow = rowFactory(merchantId, file);
  const before = commits();
  let rows = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    const row = nextRow();
    await store.transaction((trx) => repo.insertOrGet(row, trx));
    rows += 1;
  }
  const elapsed = (performance.now() - start) / 1000;
  const made = commits() - before;
  await store.close();
  return {
    name: 'store-1',
    what: 'project store, one transaction per row, sequential',
    rows,
    seconds: elapsed,
    rowsPerS: rows / elapsed,
    commits: made,
    storedRows: countRows(path),
  };
}

async function groupPhase(dir: string, file: string, seconds: number, writers: number): Promise<MicroResult> {
  const { store, merchantId, path } = await freshStore(dir, file);
  const runJob = createJobRunner(store, storeJobs, STORE_JOBS_MODULE);
  const nextRow = rowFactory(merchantId, file);
  const groups = () => store.sqliteWriterStats()?.groups ?? 0;
  const before = groups();
  let rows = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  // Each writer behaves like one HTTP connection: it waits for its commit before writing again.
  const writer = async (): Promise<void> => {
    while (performance.now() < end) {
      const row = nextRow();
      const { inserted } = await runJob('insertTransaction', row);
      if (!inserted) throw new Error('group commit lost a unique row');
      rows += 1;
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  const elapsed = (performance.now() - start) / 1000;
  const made = groups() - before;
  await store.close();
  return {
    name: 'group',
    what: `project store + group commit, ${writers} writers in flight`,
    rows,
    seconds: elapsed,
    rowsPerS: rows / elapsed,
    commits: made,
    storedRows: countRows(path),
  };
}

/** One measured phase: `file` names its fresh database; the result is one round's figure. */
type Phase = { name: string; run: (file: string, seconds: number) => Promise<MicroResult> };

/**
 * Runs every phase `rounds` times, rotating the order each round, and sums the rounds. The disk
 * here is a shared virtual disk whose fsync rate swings several-fold from second to second, so
 * interleaving is what keeps the phases comparable; the range column shows the swing.
 */
export async function runCommitMicro(
  dir: string,
  seconds: number,
  writers: number,
  rounds = 3,
): Promise<Array<MicroResult & { minRowsPerS: number; maxRowsPerS: number }>> {
  const phases: Phase[] = [
    { name: 'raw-1', run: (file, s) => rawPhase(dir, file, 'raw-1', 1, s) },
    { name: 'raw-10', run: (file, s) => rawPhase(dir, file, 'raw-10', 10, s) },
    { name: 'store-1', run: (file, s) => storeSinglePhase(dir, file, s) },
    { name: 'group', run: (file, s) => groupPhase(dir, file, s, writers) },
  ];
  const perPhase = new Map<string, MicroResult[]>(phases.map((p) => [p.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < phases.length; i++) {
      const phase = phases[(i + round) % phases.length]!;
      perPhase.get(phase.name)!.push(await phase.run(`${phase.name}-r${round}`, seconds));
    }
  }
  return phases.map(({ name }) => {
    const results = perPhase.get(name)!;
    const rows = results.reduce((a, r) => a + r.rows, 0);
    const secs = results.reduce((a, r) => a + r.seconds, 0);
    return {
      name,
      what: results[0]!.what,
      rows,
      seconds: secs,
      rowsPerS: rows / secs,
      commits: results.reduce((a, r) => a + r.commits, 0),
      storedRows: results.reduce((a, r) => a + r.storedRows, 0),
      minRowsPerS: Math.min(...results.map((r) => r.rowsPerS)),
      maxRowsPerS: Math.max(...results.map((r) => r.rowsPerS)),
    };
  });
}
