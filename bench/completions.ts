// Completions per second: how fast payments reach SUCCESS (final state, transition,
// ledger entry, outbox event in one transaction), against a bare node:http server answering the
// same POSTs from the same clients in the same run.
//
//   node_modules/.bin/node bench/completions.ts [--store sqlite|postgres] [--payments 3000] [--concurrency 64]
//     [--merchants 1] [--explain 32] [--explain-runs 5]
//
// One in-process gateway (HTTP API, production configuration apart from the port and store, no
// delivery worker: the outbox events stay pending, so only the completion itself is measured).
// `--payments` transactions are initiated first (not measured), spread round robin over
// `--merchants` merchants with a 2.5 % fee (so every entry has three lines: payout, fee,
// clearing); then `--concurrency` clients complete them all through
// `POST /sandbox/transaction/complete`. The bare baseline is a node:http server in the same
// process answering a fixed JSON body to the same clients. Afterwards every completion must be
// SUCCESS with one ledger entry, and `ledger verify` must find the ledger sound.
// Figures: completions/s, the ratio to bare, and process CPU per request (all threads).
// PostgreSQL uses a fresh database on 127.0.0.1:5432 (BENCH_PG_ADMIN_URL to override), dropped after.
// `--explain N` (PostgreSQL): afterwards, N more payments are initiated and their completion set's
// write statement is run under EXPLAIN (ANALYZE, BUFFERS) in a transaction that is rolled back;
// the plan (with the time of each trigger) is printed, and the share of the execution time spent in the
// ledger's own triggers (median of `--explain-runs` runs after one unmeasured: trigger times are less
// sensitive to a busy machine than throughput).
import http from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.ts';
import { startGateway } from '../src/server.ts';
import { LedgerOperations } from '../src/app/ledger-operations.ts';
import { benchDatabase, benchGatewayConfig } from './postgres-database.ts';
import pg from 'pg';
import { planCompletion } from '../src/domain/completion.ts';
import { newEventId } from '../src/domain/ids.ts';
import { completionsWriteQuery, readForCompletions } from '../src/store/postgres/completion-sets.repo.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    payments: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '64' },
    merchants: { type: 'string', default: '1' },
    explain: { type: 'string', default: '0' },
    'explain-runs': { type: 'string', default: '5' },
  },
});
const store = values.store === 'postgres' ? 'postgres' : 'sqlite';
const payments = Math.max(100, Math.min(200_000, Number(values.payments)));
const concurrency = Math.max(1, Math.min(512, Number(values.concurrency)));
const merchantCount = Math.max(1, Math.min(1000, Number(values.merchants)));
const explainSet = Math.max(0, Math.min(256, Number(values.explain) || 0));
const explainRuns = Math.max(1, Math.min(50, Number(values['explain-runs']) || 5));

/** Sends `bodies` through `concurrency` keep-alive clients; returns requests/s and CPU µs per request. */
async function drive(
  url: string,
  bodies: unknown[],
  check: (status: number, body: string) => void,
): Promise<{ perSecond: number; cpuUs: number; wallMs: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const send = (body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              check(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
              resolve();
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await send(bodies[next++]);
    }),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  return { perSecond: (bodies.length / wallMs) * 1000, cpuUs: (used.user + used.system) / bodies.length, wallMs };
}

const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({
      type: 'valid',
      result: 'Success',
      responsecode: '0',
      transactionid: 'x',
      status: 'SUCCESS',
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/sandbox/transaction/complete`;

const db = await benchDatabase(store);
const config = benchGatewayConfig(db.url);
const gateway = await startGateway(config, { logger: createLogger('warn'), workers: [] });
try {
  const merchants: Array<{ merchantid: string; password: string }> = [];
  for (let m = 0; m < merchantCount; m++) {
    merchants.push(
      await gateway.services.manageMerchants.create({
        name: `Bench Shop ${m}`,
        payoutCurrency: 'THB',
        payoutAccount: '1234567890',
        feeRate: '0.025',
      }),
    );
  }
  await gateway.services.directory.refresh();
  const initiations = Array.from({ length: payments }, (_, i) => {
    const m = merchants[i % merchantCount]!;
    return {
      merchantid: m.merchantid,
      password: m.password,
      payment_method: { type: 'THAI_DEBIT' },
      trackid: `bench-${i}`,
      bill_currencycode: 'THB',
      bill_amount: '1000.01',
      bill_country: 'TH',
      bill_customerip: '127.0.0.1',
      bill_email: 'payer@example.com',
      returnUrl: 'https://shop.example.com/return',
      serverUrl: 'http://127.0.0.1:9/hook',
      payer_account_no: '1234567890',
      payer_account_name: 'Bench Payer',
      payer_bank_code: '014',
    };
  });
  const completions: Array<{ merchantid: string; password: string; transactionid: string }> = [];
  await drive(`${gateway.url}/transaction/s2s`, initiations, (status, body) => {
    const json = JSON.parse(body);
    if (status !== 200) throw new Error(`initiation: ${status} ${body}`);
    const m = merchants.find((x) => x.merchantid === json.merchantid)!;
    completions.push({ merchantid: m.merchantid, password: m.password, transactionid: json.transactionid });
  });

  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const bareFirst = await drive(bareUrl, completions, (status) => {
    if (status !== 200) throw new Error(`bare: ${status}`);
  });
  const gw = await drive(`${gateway.url}/sandbox/transaction/complete`, completions, (status, body) => {
    if (status !== 200 || JSON.parse(body).responsecode !== '0') throw new Error(`completion: ${status} ${body}`);
  });
  const bareAfter = await drive(bareUrl, completions, (status) => {
    if (status !== 200) throw new Error(`bare: ${status}`);
  });

  // Accounting: every completion posted exactly once, and the ledger is sound.
  const { store: s, ledger, merchants: repo, now } = gateway.services;
  const entries = await ledger.countEntries();
  const check = await new LedgerOperations({ store: s, ledger, merchants: repo, now }).verify();
  if (entries !== payments || !check.ok)
    throw new Error(`accounting: ${entries} entries for ${payments} completions; ledger verify ok=${check.ok}`);

  const bareRate = (bareFirst.perSecond + bareAfter.perSecond) / 2;
  const bareCpu = (bareFirst.cpuUs + bareAfter.cpuUs) / 2;
  const result = {
    store,
    payments,
    concurrency,
    merchants: merchantCount,
    load_before: load,
    load_after: loadavg()
      .map((l) => l.toFixed(1))
      .join(' '),
    bare_per_s: [Math.round(bareFirst.perSecond), Math.round(bareAfter.perSecond)],
    completions_per_s: Math.round(gw.perSecond),
    vs_bare: Math.round((gw.perSecond / bareRate) * 100) / 100,
    cpu_us_per_completion: Math.round(gw.cpuUs),
    bare_cpu_us_per_request: Math.round(bareCpu),
    cpu_vs_bare: Math.round((gw.cpuUs / bareCpu) * 10) / 10,
    ledger_entries: entries,
    ledger_verify_ok: check.ok,
  };
  console.log(
    `Completions (${store}, ${payments} payments over ${merchantCount} merchant(s), ` +
      `${concurrency} clients, load ${result.load_before} → ${result.load_after}):\n` +
      `  bare node:http ${result.bare_per_s.join(' / ')} req/s ` +
      `(before / after), ${result.bare_cpu_us_per_request} µs CPU per request\n` +
      `  gateway completions ${result.completions_per_s}/s = ${result.vs_bare}× bare, ` +
      `${result.cpu_us_per_completion} µs CPU per completion (${result.cpu_vs_bare}× bare); ` +
      `ledger: ${entries} entries, verify ok`,
  );
  console.log(JSON.stringify(result));

  if (explainSet > 0 && store === 'postgres') {
    // One completion set of `explainSet` payments, spread over the merchants as above.
    const more = initiations.slice(0, explainSet).map((body, i) => ({ ...body, trackid: `explain-${i}` }));
    const ids: string[] = [];
    await drive(`${gateway.url}/transaction/s2s`, more, (status, body) => {
      if (status !== 200) throw new Error(`initiation: ${status} ${body}`);
      ids.push(JSON.parse(body).transactionid);
    });
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const rows = await readForCompletions(pool, ids);
      const at = Date.now();
      const plans = ids.map((id) =>
        planCompletion(rows.get(id), { transactionId: id, cause: 'sandbox', eventId: newEventId(), at }),
      );
      const query = completionsWriteQuery(plans);
      const client = await pool.connect();
      try {
        // `--explain-runs` + 1 runs, the first not counted: it compiles the PL/pgSQL triggers on this connection.
        const runs: Array<{ lines: string[]; total: number; triggers: Map<string, number> }> = [];
        for (let run = 0; run <= explainRuns; run++) {
          await client.query('begin');
          const plan = await client.query({
            text: `explain (analyze, buffers) ${query.text}`,
            values: query.values,
          });
          await client.query('rollback');
          if (run === 0) continue;
          const lines = plan.rows.map((r: Record<string, string>) => String(r['QUERY PLAN']));
          const triggers = new Map<string, number>();
          for (const line of lines) {
            const m = /^Trigger (.+?): time=([\d.]+)/.exec(line);
            if (m) triggers.set(m[1]!, Number(m[2]));
          }
          const total = Number(/^Execution Time: ([\d.]+)/m.exec(lines.join('\n'))?.[1]);
          runs.push({ lines, total, triggers });
        }
        console.log(
          `EXPLAIN (ANALYZE, BUFFERS) of one completion set's write (${ids.length} ` +
            `SUCCESS completions, ${merchantCount} merchant(s)), rolled back, last of ${explainRuns} runs:`,
        );
        console.log(runs.at(-1)!.lines.join('\n'));
        // The ledger's own triggers (not the foreign keys'): every trigger on postings, journal_entries
        // or ledger_accounts whose name is not "for constraint …". A busy machine preempts some runs:
        // the median run and the quietest run (least execution time) are both printed.
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        const ms = (x: number) => x.toFixed(3);
        const isLedger = (name: string) => /^\w+ on (postings|journal_entries|ledger_accounts)$/.test(name);
        const ledgerTime = (r: (typeof runs)[number]) =>
          [...r.triggers].filter(([name]) => isLedger(name)).reduce((sum, [, t]) => sum + t, 0);
        const shares = runs.map((r) => ledgerTime(r) / r.total);
        const quietest = runs.reduce((q, r) => (r.total < q.total ? r : q));
        const names = [...runs[0]!.triggers.keys()].filter(isLedger);
        console.log(
          `ledger triggers (${ids.length} completions, ${runs.length} runs): median ` +
            `${ms(median(runs.map(ledgerTime)))} of ${ms(median(runs.map((r) => r.total)))} ms execution, ` +
            `share ${(median(shares) * 100).toFixed(0)} %; quietest run ${ms(ledgerTime(quietest))} of ` +
            `${ms(quietest.total)} ms = ${((ledgerTime(quietest) / quietest.total) * 100).toFixed(0)} %; medians: ` +
            names.map((n) => `${n.split(' ')[0]} ${ms(median(runs.map((r) => r.triggers.get(n) ?? 0)))}`).join(', '),
        );
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  }
} finally {
  await gateway.stop();
  bare.close();
  await db.drop();
}
