// What the token and redirect id indexes cost every initiation's SQLite write, before and after
// keyed identifiers (migration 019, docs/performance.md "Keyed identifiers"), alternating A/B on
// fresh files for `--rounds` rounds on this (shared, noisy) machine.
// `node bench/identifier-index-cost.ts [--seconds 3] [--rounds 4]`.
//   before  the schema up to migration 018 (UNIQUE token and redirect_id: two more B-trees), ids of
//           the earlier form (48-bit time, then random bits: 43 and 32 characters)
//   after   the schema with migration 019, keyed ids (domain/keyed-ids.ts: two HMACs per row)
// Both write UUIDv7 transaction ids and the same row. The ids are made before each phase's clock
// starts, so the phases measure the write alone; making them is measured apart:
//   ids   µs per identifier set on the HTTP thread (keyed: two HMAC-SHA256 with cached KeyObjects)
//   raw   the transactions INSERT on node:sqlite, 100 rows per commit: index upkeep, not fsync
//   group the project's write path: the store job `insertTransaction` through the writer thread's
//         group commit, 16 writers in flight (like 16 connections initiating)
// The process's CPU per row is printed beside the rates (all threads: the writer's work included).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ManageMerchants } from '../src/app/manage-merchants.ts';
import { openSqlite } from '../src/store/sqlite/dialect.ts';
import { STORE_JOBS_MODULE, storeJobs } from '../src/store/sqlite/jobs.ts';
import { createJobRunner } from '../src/store/job-runner.ts';
import { MerchantsRepo } from '../src/store/repos/merchants.repo.ts';
import { ConsoleRepo } from '../src/store/repos/console.repo.ts';
import { openStoreEngine } from '../src/store/engine.ts';
import { migrateTo } from '../src/store/migrations/index.ts';
import { drawRandomBytes, newTransactionIdentifiers, uuidv7 } from '../src/domain/ids.ts';
import type { TransactionRecord } from '../src/domain/transaction.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '4' } },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const PER_COMMIT = 100;
const WRITERS = 16;
const KEY = randomBytes(32);

type Variant = 'before' | 'after';
type Ids = { id: string; token: string; redirectId: string };

/** The identifiers each variant's gateway makes: the earlier random form, or keyed ids. */
function identifiers(variant: Variant, nowMs: number): Ids {
  if (variant === 'after') return newTransactionIdentifiers(nowMs, KEY);
  const random = drawRandomBytes(16 + 26 + 18);
  const token = Buffer.allocUnsafe(32);
  token.writeUIntBE(nowMs, 0, 6);
  random.copy(token, 6, 16, 42);
  const redirectId = Buffer.allocUnsafe(24);
  redirectId.writeUIntBE(nowMs, 0, 6);
  random.copy(redirectId, 6, 42, 60);
  return {
    id: uuidv7(nowMs, random.subarray(0, 16)),
    token: token.toString('base64url'),
    redirectId: redirectId.toString('base64url'),
  };
}

/** A fresh file migrated as the variant's gateway would have it, with one merchant. */
async function freshFile(dir: string, file: string, variant: Variant): Promise<{ path: string; merchantid: string }> {
  const path = join(dir, `${file}.db`);
  const store = openStoreEngine(`sqlite:${path}`);
  if (variant === 'before') await migrateTo(store.db, '018-ledger-checks-per-statement');
  else await store.migrate();
  const { merchantid } = await new ManageMerchants(
    new MerchantsRepo(store.db),
    new ConsoleRepo(store),
    Buffer.alloc(32, 7),
    0,
  ).create({ name: 'Bench', payoutCurrency: 'THB', payoutAccount: '1234567890' });
  await store.close();
  return { path, merchantid };
}

type Rate = { rowsPerS: number; cpuUsPerRow: number };

/** More identifier sets than a phase can write (made before its clock starts). */
const PREMADE = 400_000;
function premade(variant: Variant): Ids[] {
  const now = Date.now();
  return Array.from({ length: PREMADE }, (_, i) => identifiers(variant, now + Math.floor(i / 64)));
}

async function idsPhase(_dir: string, _file: string, variant: Variant): Promise<Rate> {
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) for (let i = 0; i < 1000; i++, n++) identifiers(variant, Date.now());
  return measured(n, start, cpu);
}

function measured(rows: number, start: number, cpu: NodeJS.CpuUsage): Rate {
  const used = process.cpuUsage(cpu);
  return { rowsPerS: rows / ((performance.now() - start) / 1000), cpuUsPerRow: (used.user + used.system) / rows };
}

async function rawPhase(dir: string, file: string, variant: Variant): Promise<Rate> {
  const { path, merchantid } = await freshFile(dir, file, variant);
  const made = premade(variant);
  const db = openSqlite({ path });
  const insert = db.prepare(
    'insert into transactions (id, merchant_id, trackid, request_hash, token, redirect_id, status, ' +
      'amount_minor, currency, payment_method, bill_country, bill_customerip, bill_email, return_url, ' +
      'server_url, payer_account_no, payer_account_name, payer_bank_code, lang, created_at, expires_at) ' +
      "values (?, ?, ?, ?, ?, ?, 'PROCESSING', ?, 'THB', 'THAI_DEBIT', 'TH', '203.150.10.24', ?, " +
      "'https://shop.example/return', 'https://shop.example/hook', '1234567890', 'Somchai', '014', 'en', ?, ?)",
  );
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end && n + PER_COMMIT < PREMADE) {
    db.exec('begin immediate');
    for (let i = 0; i < PER_COMMIT; i++) {
      const ids = made[n]!;
      n += 1;
      const now = Date.now();
      insert.run(
        ids.id,
        merchantid,
        `t-${n}`,
        'h'.repeat(43),
        ids.token,
        ids.redirectId,
        (100 + (n % 5000)) * 10_000,
        `buyer${n % 100_000}@example.com`,
        now,
        now + 900_000,
      );
    }
    db.exec('commit');
  }
  const rate = measured(n, start, cpu);
  db.close();
  return rate;
}

/** The row every phase writes, without its identifiers. */
function template(merchantId: string, n: number): Omit<TransactionRecord, keyof Ids> {
  const now = Date.now();
  return {
    merchantId,
    trackid: `t-${n}`,
    requestHash: 'h'.repeat(43),
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
}

async function groupPhase(dir: string, file: string, variant: Variant): Promise<Rate> {
  const { path, merchantid } = await freshFile(dir, file, variant);
  const made = premade(variant);
  const store = openStoreEngine(`sqlite:${path}`);
  const runJob = createJobRunner(store, storeJobs, STORE_JOBS_MODULE);
  await runJob('insertTransaction', { ...template(merchantid, 0), ...identifiers(variant, Date.now()) }); // writer up
  let n = 0;
  const row = (): TransactionRecord => {
    n += 1;
    return { ...template(merchantid, n), ...made[n]! };
  };
  let rows = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (performance.now() < end && n + 1 < PREMADE) {
        await runJob('insertTransaction', row());
        rows += 1;
      }
    }),
  );
  const rate = measured(rows, start, cpu);
  await store.close();
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), 'gw-identifier-cost-'));
try {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const range = (xs: number[], digits = 0) =>
    `${Math.min(...xs).toLocaleString('en-US', { maximumFractionDigits: digits })}–` +
    `${Math.max(...xs).toLocaleString('en-US', { maximumFractionDigits: digits })}`;
  const fmt = (rates: Rate[]) => {
    const mean = Math.round(sum(rates.map((r) => r.rowsPerS)) / rates.length).toLocaleString('en-US');
    const cpu = range(
      rates.map((r) => r.cpuUsPerRow),
      1,
    );
    return `${range(rates.map((r) => r.rowsPerS))} rows/s, CPU ${cpu} µs per row (mean ${mean} rows/s)`;
  };
  console.log(
    `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${ROUNDS} rounds × ${SECONDS} s per phase`,
  );
  for (const [mode, run] of [
    ['identifier sets (no write)', idsPhase],
    [`raw, ${PER_COMMIT} rows per commit`, rawPhase],
    [`group commit, ${WRITERS} writers`, groupPhase],
  ] as const) {
    const rates: Record<Variant, Rate[]> = { before: [], after: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) rates[which].push(await run(dir, `${mode.slice(0, 3)}-${which}-${round}`, which));
    }
    console.log(`${mode}:`);
    console.log(`  before (UNIQUE token, redirect_id; random ids): ${fmt(rates.before)}`);
    console.log(`  after  (migration 019; keyed ids):              ${fmt(rates.after)}`);
    const ratio = sum(rates.after.map((r) => r.rowsPerS)) / sum(rates.before.map((r) => r.rowsPerS));
    console.log(`  ratio after/before: ${ratio.toFixed(2)}`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
