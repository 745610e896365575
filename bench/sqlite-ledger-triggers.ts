// What the ledger's check triggers cost on SQLite (docs/performance.md "Ledger checks per
// statement"): a payment's ledger write as the writer thread does it (repos/ledger.repo.ts
// insertContinuingChains: the payout line continuing its chain in SQL, the fee and clearing lines
// without one, then the entry), with the check triggers and without them, alternated in blocks.
// Without them, only the trigger that moves the payout row stays (the balance needs it).
//
//   node_modules/.bin/node bench/sqlite-ledger-triggers.ts [--entries 20000] [--per-commit 64] [--rounds 4]
//
// Figures: CPU µs per entry (process.cpuUsage, one thread: node:sqlite is synchronous) with and without
// the checks, their difference, and that difference beside the CPU of a whole completion
// (bench/completions.ts) for scale. `--per-commit` entries share a commit, as the writer's group does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStoreEngine } from '../src/store/engine.ts';
import { openSqlite } from '../src/store/sqlite/dialect.ts';
import { seedRows } from './seed-rows.ts';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '20000' },
    'per-commit': { type: 'string', default: '64' },
    rounds: { type: 'string', default: '4' },
  },
});
const entries = Math.max(1000, Math.min(1_000_000, Number(values.entries)));
const perCommit = Math.max(1, Math.min(1000, Number(values['per-commit'])));
const rounds = Math.max(1, Math.min(20, Number(values.rounds)));
const merchant = 'M-sqlite-triggers';
const CHECKS = ['postings_insert', 'journal_entries_insert', 'ledger_accounts_update'];

const dir = mkdtempSync(join(tmpdir(), 'gw-ledger-triggers-'));
const url = `sqlite:${join(dir, 'gateway.db')}`;
try {
  const store = openStoreEngine(url);
  await store.migrate();
  await store.db
    .insertInto('merchants')
    .values({
      id: merchant,
      name: 'triggers',
      password_hash: 'x',
      webhook_secret_enc: 'x',
      payout_currency: 'THB',
      payout_account: '1',
      fee_rate_ppm: 25_000n,
      status: 'active',
      created_at: 0,
      updated_at: 0,
    })
    .execute();
  await store.close();
  await seedRows(url, merchant, entries + 1000); // SUCCESS payments of 150.5 THB: 'seed-000000000001' …
  const db = openSqlite({ path: join(dir, 'gateway.db') });
  const payout = `merchant_payout:${merchant}:THB`;
  for (const [id, kind, owner] of [
    [payout, 'merchant_payout', merchant],
    ['gateway_fee:gateway:THB', 'gateway_fee', null],
    ['gateway_clearing:gateway:THB', 'gateway_clearing', null],
  ] as const) {
    db.prepare(
      `insert into ledger_accounts (id, kind, merchant_id, currency, balance_minor, posting_count, created_at) ` +
        `values (?, ?, ?, 'THB', 0, 0, 0)`,
    ).run(id, kind, owner);
  }
  const chained = db.prepare(
    `insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor,
       created_at) select ?, 1, a.id, a.currency, ?, a.posting_count + 1, a.balance_minor + ?, 0
     from ledger_accounts a where a.id = ?`,
  );
  const summed = db.prepare(
    `insert into postings (entry_id, line_no, account_id, currency, amount_minor, account_seq, balance_after_minor,
       created_at) values (?, ?, ?, 'THB', ?, null, null, 0)`,
  );
  const entry = db.prepare(
    `insert into journal_entries (id, kind, merchant_id, transaction_id, idempotency_key, reason, created_at)
     values (?, 'payment', ?, ?, null, 'payment', 0)`,
  );
  const triggers = db
    .prepare(`select name, sql from sqlite_master where type = 'trigger' and name in (${CHECKS.map(() => '?')})`)
    .all(...CHECKS) as Array<{ name: string; sql: string }>;
  if (triggers.length !== CHECKS.length) throw new Error('the ledger check triggers are not where expected');

  let next = 1;
  /** Writes `count` payment entries, `perCommit` per transaction; returns CPU µs per entry. */
  const write = (count: number): number => {
    const cpu = process.cpuUsage();
    for (let done = 0; done < count;) {
      db.exec('begin immediate');
      for (let k = 0; k < perCommit && done < count; k++, done++) {
        const n = next++;
        const id = `e-${n}`;
        chained.run(id, 1_467_375n, 1_467_375n, payout);
        summed.run(id, 2, 'gateway_fee:gateway:THB', 37_625n);
        summed.run(id, 3, 'gateway_clearing:gateway:THB', -1_505_000n);
        entry.run(id, merchant, `seed-${String(n).padStart(12, '0')}`);
      }
      db.exec('commit');
    }
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / count;
  };
  const block = Math.floor(entries / (2 * rounds));
  const withChecks: number[] = [];
  const without: number[] = [];
  write(Math.min(500, block)); // warm-up, not counted
  for (let round = 0; round < rounds; round++) {
    withChecks.push(write(block));
    for (const t of triggers) db.exec(`drop trigger ${t.name}`);
    without.push(write(block));
    for (const t of triggers) db.exec(t.sql);
  }
  db.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const a = median(withChecks);
  const b = median(without);
  const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(
    `SQLite ledger write of a payment (3 postings + entry, ${perCommit} per commit, ${rounds} rounds of ` +
      `${block} each way, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}):\n` +
      `  with the check triggers ${a.toFixed(1)} µs CPU per entry (rounds ${list(withChecks)})\n` +
      `  without them           ${b.toFixed(1)} µs (rounds ${list(without)})\n` +
      `  the checks: ${(a - b).toFixed(1)} µs per entry = ${(((a - b) / a) * 100).toFixed(0)} % of the ledger write`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
