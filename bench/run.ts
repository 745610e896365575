// `npm run bench`: the gateway measured side by side with bare baselines in the same run.
//   1. SQLite commit micro-benchmark (raw node:sqlite vs the project's store vs group commit)
//   2. bare node:http JSON POST server (the ceiling)       — before the gateway
//   3. bare Fastify JSON POST route (framework cost)
//   4. the gateway on SQLite: unique initiations, idempotent replays, status queries,
//      hosted page GETs and the mixed load (70 % initiation, 20 % status, 10 % completion)
//   5. optionally the gateway on PostgreSQL (--postgres)
//   5b. optionally initiation over N existing rows per store (--existing-rows N)
//   6. the bare node:http server again                     — after, to show drift/noise
//   7. optionally a profiled gateway run (--profile)
// Ratios are against the mean of the two bare runs. Load generator and server share this
// machine's cores; servers run one at a time. Children and temp files are removed even on failure.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, copyFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCommitMicro } from './commit-micro.ts';
import { killAllChildren, startServer } from './children.ts';
import { runGateway, type GatewayRunOptions, type GatewayRunResult } from './gateway-run.ts';
import { startKbankSimChild } from './kbank-sim-child.ts';
import { runLoad, type LoadResult } from './load.ts';
import { parseBenchOptions, timeLimitS, type BenchOptions } from './options.ts';
import { createBenchDatabase, type BenchDatabase } from './postgres-database.ts';
import { formatProfileSummary, summariseProfile } from './profile-summary.ts';
import { httpTable, microTable, type Row } from './report.ts';
import { initiationBodyFactory } from './request-bodies.ts';
import { parseHardeningOptions, runHardening } from './hardening.ts';

const log = (line: string) => console.log(line);

let tmpDir: string | undefined;
let pgDatabase: BenchDatabase | undefined;

function cleanupSync(): void {
  killAllChildren();
  if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  tmpDir = undefined;
}

async function baseline(script: string, label: string, options: BenchOptions): Promise<LoadResult> {
  const server = await startServer([script], {}, /listening (http:\/\/127\.0\.0\.1:\d+)/);
  try {
    const makeBody = initiationBodyFactory({ merchantid: 'BASELINE', password: 'pw_baseline' });
    let n = 0;
    const spec = {
      url: server.url,
      path: '/transaction/s2s',
      connections: options.connections,
      body: () => makeBody(`b-${++n}`),
      serverPid: server.process.pid,
    };
    if (options.warmupS > 0) await runLoad({ ...spec, durationS: options.warmupS });
    log(`  ${label}: ${options.durationS} s`);
    return await runLoad({ ...spec, durationS: options.durationS });
  } finally {
    await server.stop(5000);
  }
}

/**
 * The SQLite gateway with the KBank connector on a local kbank-sim (bench/kbank-sim-child.ts):
 * initiation, which never calls the bank, and the hosted page's first views, which do.
 */
async function runKbank(common: Omit<GatewayRunOptions, 'label' | 'databaseUrl'>): Promise<GatewayRunResult> {
  const sim = await startKbankSimChild(common.gatewayDir ?? '.');
  try {
    return await runGateway({
      ...common,
      label: 'sqlite, KBank on kbank-sim',
      databaseUrl: `sqlite:${join(common.tmpDir, 'kbank.db')}`,
      extraEnv: sim.gatewayEnv,
      firstViews: true,
    });
  } finally {
    await sim.stop();
  }
}

function machineLine(): string {
  const cores = cpus();
  return (
    `${cores.length} × ${cores[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
}

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  tmpDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  // Fail in the first second, not after minutes of load, when PostgreSQL is not there.
  if (options.postgres && !options.microOnly) pgDatabase = await createBenchDatabase();
  log(
    `Benchmark: ${options.connections} connections, ${options.durationS} s per scenario, ` +
      `${options.warmupS} s warm-up per server (hard limit ${timeLimitS(options)} s)`,
  );
  log(`Machine: ${machineLine()}`);
  log(`The load generator (autocannon, this process) and the server under test share these ${cpus().length} cores;`);
  log('servers run one at a time, so each figure is "one server + one load generator on this machine".');
  log('');

  log(
    `SQLite commit micro-benchmark (3 interleaved rounds ` +
      `of ${options.microS} s per phase, WAL + synchronous=FULL, temp files):`,
  );
  const micro = await runCommitMicro(tmpDir, options.microS, options.connections);
  log(microTable(micro));
  log('');
  if (options.microOnly) return micro.every((m) => m.storedRows === m.rows) ? 0 : 1;

  log('HTTP scenarios:');
  const before = await baseline('bench/baseline-server.ts', 'bare node:http (before)', options);
  const fastify = options.skipFastify
    ? undefined
    : await baseline('bench/fastify-baseline-server.ts', 'bare Fastify', options);

  const runs: GatewayRunResult[] = [];
  const common = {
    tmpDir,
    connections: options.connections,
    durationS: options.durationS,
    warmupS: options.warmupS,
    log,
    gatewayDir: options.gatewayDir,
  };
  const only = { initiationOnly: options.initiationOnly, mixedOnly: options.mixedOnly };
  if (options.gatewayDir !== '.') log(`  measuring the gateway in ${resolve(options.gatewayDir)}`);
  runs.push(
    await runGateway({ ...common, ...only, label: 'sqlite', databaseUrl: `sqlite:${join(tmpDir, 'gateway.db')}` }),
  );
  if (options.kbank) runs.push(await runKbank(common));
  if (options.existingRows > 0) {
    const label = `sqlite, ${options.existingRows.toLocaleString('en-US')} rows`;
    runs.push(
      await runGateway({
        ...common,
        label,
        databaseUrl: `sqlite:${join(tmpDir, 'big.db')}`,
        initiationOnly: true,
        existingRows: options.existingRows,
      }),
    );
  }
  const deadLabel = (store: string) =>
    `${store}, ${options.deadBacklog.toLocaleString('en-US')} due to a dead endpoint`;
  if (options.deadBacklog > 0) {
    runs.push(
      await runGateway({
        ...common,
        label: deadLabel('sqlite'),
        databaseUrl: `sqlite:${join(tmpDir, 'dead.db')}`,
        initiationOnly: true,
        deadBacklog: options.deadBacklog,
      }),
    );
  }
  if (pgDatabase) {
    try {
      runs.push(await runGateway({ ...common, ...only, label: 'postgres', databaseUrl: pgDatabase.url }));
    } finally {
      await pgDatabase.drop();
    }
    if (options.existingRows > 0) {
      pgDatabase = await createBenchDatabase();
      try {
        const label = `postgres, ${options.existingRows.toLocaleString('en-US')} rows`;
        runs.push(
          await runGateway({
            ...common,
            label,
            databaseUrl: pgDatabase.url,
            initiationOnly: true,
            existingRows: options.existingRows,
          }),
        );
      } finally {
        await pgDatabase.drop();
      }
    }
    if (options.deadBacklog > 0) {
      pgDatabase = await createBenchDatabase();
      try {
        runs.push(
          await runGateway({
            ...common,
            label: deadLabel('postgres'),
            databaseUrl: pgDatabase.url,
            initiationOnly: true,
            deadBacklog: options.deadBacklog,
          }),
        );
      } finally {
        await pgDatabase.drop();
      }
    }
  }
  const after = await baseline('bench/baseline-server.ts', 'bare node:http (after)', options);
  const baselineRps = (before.rps + after.rps) / 2;

  let profileText: string | undefined;
  if (options.profile) {
    const profDir = join(tmpDir, 'profile');
    await runGateway({
      ...common,
      label: 'sqlite, profiled',
      databaseUrl: `sqlite:${join(tmpDir, 'profiled.db')}`,
      nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
      initiationOnly: !options.mixedOnly,
      mixedOnly: options.mixedOnly,
    });
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      const keptDir = resolve('data/bench-profile');
      mkdirSync(keptDir, { recursive: true });
      const kept = join(keptDir, `initiate-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
      copyFileSync(join(profDir, file), kept);
      profileText =
        `${formatProfileSummary(summariseProfile(kept))}\n\nProfile kept at ${kept} (open ` +
        `it in Chrome DevTools → Performance, or: node bench/profile-summary.ts <file>)`;
    } else {
      profileText = 'The profiled gateway wrote no .cpuprofile (did it exit cleanly?).';
    }
  }

  const rows: Row[] = [{ scenario: 'bare node:http (before)', load: before }];
  if (fastify) rows.push({ scenario: 'bare Fastify', load: fastify });
  for (const run of runs)
    for (const s of run.scenarios) rows.push({ scenario: `${s.name} [${run.store}]`, load: s.load });
  rows.push({ scenario: 'bare node:http (after)', load: after });

  log('');
  log(
    `Results (${options.connections} connections, ${options.durationS} s each; ` +
      `"vs bare" = req/s ÷ mean of the two bare node:http ` +
      `runs = ${Math.round(baselineRps).toLocaleString('en-US')} req/s):`,
  );
  const baseUs = [before.serverUsPerRequest, after.serverUsPerRequest].filter((x): x is number => x !== undefined);
  const baseMainUs = [before.mainThreadUsPerRequest, after.mainThreadUsPerRequest].filter(
    (x): x is number => x !== undefined,
  );
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
  log(httpTable(rows, baselineRps, mean(baseUs), mean(baseMainUs)));
  log('srv/gen cores = CPU used by the server / by the load generator during the run (1.00 = one core busy);');
  log(
    'srv µs/req = server CPU per answered request, all threads; ' +
      '"CPU vs bare" compares it with the bare node:http server;',
  );
  log("main µs/req = the same for the server's main (HTTP) thread alone, without the SQLite writer thread.");
  log('');

  let failed = false;
  for (const run of runs) {
    for (const s of run.scenarios) {
      if (s.load.non2xx > 0 || s.load.errors > 0) {
        failed = true;
        log(
          `FAIL [${run.store}] ${s.name}: status codes ${JSON.stringify(s.load.statusCodes)}, ` +
            `${s.load.errors} socket errors/timeouts; first failure: ${s.sampleFailure ?? '(none captured)'}`,
        );
      }
    }
    const a = run.accounting;
    const verdict = a.ok ? 'OK' : 'FAIL';
    if (!a.ok) failed = true;
    log(
      `Accounting [${run.store}] ${verdict}: ${a.acknowledged} initiations acknowledged ` +
        `with 200 (warm-up + measured + replay seed), ${a.stored} rows stored; ` +
        `${a.missing} acknowledged but missing, ${a.phantom} unexplained rows, ` +
        `${a.cutOff} committed requests whose answer the load generator dropped at the end of a run.`,
    );
    const c = run.completions;
    if (c) {
      if (!c.ok) failed = true;
      log(
        `Completions [${run.store}] ${c.ok ? 'OK' : 'FAIL'}: ` +
          `${c.acknowledged} completions acknowledged with 200; ${c.notFinal} not final in the store, ` +
          `${c.withoutEvent} without exactly one outbox event; ledger verify ${c.ledgerSound ? 'sound' : 'NOT SOUND'}.`,
      );
      const unique = run.scenarios.find((s) => s.name.includes('unique'));
      const mixed = run.scenarios.find((s) => s.name.includes('mixed'));
      if (unique && mixed)
        log(
          `Mixed vs initiation-only [${run.store}]: ` +
            `${(mixed.load.rps / unique.load.rps).toFixed(2)}× the req/s (target ≥ 0.80×)`,
        );
    }
    if (!run.initiationOnly && !run.mixedOnly && !run.firstViews && !run.replayHeaderSeen) {
      failed = true;
      log(`FAIL [${run.store}] the replayed initiation did not carry Idempotent-Replayed: true`);
    }
    if (run.exitCode !== 0) {
      failed = true;
      log(`FAIL [${run.store}] the gateway exited with ${run.exitCode} on SIGTERM`);
    }
  }
  // Live initiation must cost what sandbox initiation costs: the bank is asked at the first page view.
  const sandboxRun = runs.find((r) => r.store === 'sqlite');
  const kbankRun = runs.find((r) => r.firstViews);
  const uniqueOf = (run: GatewayRunResult | undefined) => run?.scenarios.find((s) => s.name.includes('unique'));
  const [sandboxInit, kbankInit] = [uniqueOf(sandboxRun), uniqueOf(kbankRun)];
  if (sandboxInit && kbankInit) {
    const cpu = (s: typeof sandboxInit) => s.load.serverUsPerRequest;
    const [a, b] = [cpu(sandboxInit), cpu(kbankInit)];
    const rps = (kbankInit.load.rps / sandboxInit.load.rps).toFixed(2);
    log(
      `Initiation with KBank vs the sandbox connector [sqlite]: ${rps}× the req/s` +
        (a !== undefined && b !== undefined ? `, ${(b / a).toFixed(2)}× the server CPU per request` : '') +
        ' (the bank is not called on this path)',
    );
  }
  for (const m of micro) {
    if (m.storedRows !== m.rows) {
      failed = true;
      log(`FAIL micro ${m.name}: ${m.rows} rows committed but ${m.storedRows} stored`);
    }
  }
  if (profileText) log(`\n${profileText}`);
  log(
    `\nMachine after the run: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine skews every row; compare ratios, not absolutes)`,
  );
  return failed ? 1 : 0;
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    cleanupSync();
    void (pgDatabase?.drop().catch(() => {}) ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

let watchdog: NodeJS.Timeout | undefined;
try {
  // `npm run bench -- --hardening metrics|overload …`: the /metrics and overload figures (bench/hardening.ts).
  if (process.argv[2] === '--hardening') {
    await runHardening(parseHardeningOptions(process.argv.slice(3)));
    process.exit(0);
  }
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  const limitS = timeLimitS(options);
  watchdog = setTimeout(() => {
    console.error(`The benchmark exceeded its ${Math.round(limitS)} s limit; stopping.`);
    cleanupSync();
    void (pgDatabase?.drop().catch(() => {}) ?? Promise.resolve()).finally(() => process.exit(1));
  }, limitS * 1000);
  process.exitCode = await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  await pgDatabase?.drop().catch(() => {});
  process.exitCode = 1;
} finally {
  if (watchdog) clearTimeout(watchdog);
  cleanupSync();
}
