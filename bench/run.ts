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
//   8. the targets' own scenarios: the console payments page per store, and per store the delivery
//      benchmarks as children (delivery-latency.ts, delivery-window.ts)
//   9. the targets table (bench/targets.ts): each target, this run's figure, the bare baseline, met or not
// --targets-only runs just 2, 4 (initiation), 5 (initiation), 6, 8 and 9 with short defaults.
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
import { runConsolePage, CONSOLE_CONNECTIONS, type ConsolePageResult } from './console-page.ts';
import {
  runDeliveryLatency,
  runDeliveryWindow,
  type ChildFigures,
  type DeliveryLatency,
  type DeliveryWindow,
} from './delivery-targets.ts';
import { STORES, targetLines, targetsTable, type Store, type TargetInputs } from './targets.ts';

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

  const micro = options.targetsOnly ? [] : await commitMicro(tmpDir, options);
  if (options.microOnly) {
    const failed = micro.some((m) => m.storedRows !== m.rows);
    logTargets(
      options,
      { connections: options.connections, notRun: () => 'without --micro-only', bare: undefined },
      {},
    );
    return failed ? 1 : 0;
  }

  log('HTTP scenarios:');
  const before = await baseline('bench/baseline-server.ts', 'bare node:http (before)', options);
  const fastify =
    options.skipFastify || options.targetsOnly
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
  const only = { initiationOnly: options.initiationOnly || options.targetsOnly, mixedOnly: options.mixedOnly };
  // The extra runs are not targets: --targets-only leaves them out.
  const extras = !options.targetsOnly;
  if (options.gatewayDir !== '.') log(`  measuring the gateway in ${resolve(options.gatewayDir)}`);
  runs.push(
    await runGateway({ ...common, ...only, label: 'sqlite', databaseUrl: `sqlite:${join(tmpDir, 'gateway.db')}` }),
  );
  if (extras && options.kbank) runs.push(await runKbank(common));
  if (extras && options.existingRows > 0) {
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
  if (extras && options.deadBacklog > 0) {
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
    if (extras && options.existingRows > 0) {
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
    if (extras && options.deadBacklog > 0) {
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
  if (extras && options.profile) {
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

  const targets = await targetScenarios(options, tmpDir);

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
  for (const run of runs) {
    const unique = run.scenarios.find((s) => s.name.includes('unique'));
    if (unique?.backendUsPerRequest !== undefined)
      log(
        `PostgreSQL backends [${run.store}]: ${unique.backendUsPerRequest.toFixed(0)} µs per initiation ` +
          `beside the gateway's ${unique.load.serverUsPerRequest?.toFixed(0) ?? '?'} µs ` +
          "(the bench database's backends from pg_stat_activity, CPU from /proc)",
      );
  }
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
  if (targets.failures.length > 0) failed = true;
  for (const failure of targets.failures) log(`FAIL ${failure}`);
  if (profileText) log(`\n${profileText}`);
  log(
    `\nMachine after the run: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine skews every row; compare ratios, not absolutes)`,
  );

  const initiation: TargetInputs['initiation'] = {};
  for (const store of STORES) initiation[store] = uniqueOf(runs.find((r) => r.store === store));
  const p99s = [before.p99Ms, after.p99Ms];
  logTargets(
    options,
    {
      connections: options.connections,
      notRun: (store) => (store === 'postgres' && !options.postgres ? '--postgres' : undefined),
      bare: { rps: baselineRps, usPerRequest: mean(baseUs), p99Ms: mean(p99s) ?? 0 },
      initiation,
    },
    targets,
  );
  return failed ? 1 : 0;
}

async function commitMicro(dir: string, options: BenchOptions) {
  log(
    `SQLite commit micro-benchmark (3 interleaved rounds ` +
      `of ${options.microS} s per phase, WAL + synchronous=FULL, temp files):`,
  );
  const micro = await runCommitMicro(dir, options.microS, options.connections);
  log(microTable(micro));
  log('');
  return micro;
}

type TargetFigures = Pick<TargetInputs, 'consolePage' | 'latency' | 'window'> & { failures: string[] };

/**
 * The targets' own scenarios, one store at a time: the console payments page over a seeded store, then
 * the delivery benchmarks as children (each starts its own gateway on a fresh database).
 */
async function targetScenarios(options: BenchOptions, dir: string): Promise<TargetFigures> {
  const figures: TargetFigures = { consolePage: {}, latency: {}, window: {}, failures: [] };
  const stores: Store[] = options.postgres ? ['sqlite', 'postgres'] : ['sqlite'];
  log('');
  log(
    `Target scenarios: the console payments page (${CONSOLE_CONNECTIONS} connections, ` +
      `${options.consoleRows.toLocaleString('en-US')} payments seeded), ` +
      "notification latency and one endpoint's window:",
  );
  for (const store of stores) {
    try {
      let page: ConsolePageResult;
      if (store === 'postgres') {
        pgDatabase = await createBenchDatabase();
        try {
          page = await consolePage(options, dir, store, pgDatabase.url);
        } finally {
          await pgDatabase.drop();
        }
      } else page = await consolePage(options, dir, store, `sqlite:${join(dir, 'console.db')}`);
      figures.consolePage[store] = page;
      const { gateway, bare } = page;
      log(
        `  console page [${store}]: ${page.pageRows} rows, gateway ${Math.round(gateway.rps)} req/s, ` +
          `${gateway.serverUsPerRequest?.toFixed(0) ?? '?'} µs CPU per GET` +
          (page.backendUsPerRequest === undefined
            ? ''
            : ` + PostgreSQL backends ${page.backendUsPerRequest.toFixed(0)} µs`) +
          `; bare node:http, same HTML: ${Math.round(bare.rps)} req/s, ` +
          `${bare.serverUsPerRequest?.toFixed(0) ?? '?'} µs`,
      );
      if (page.failure) figures.failures.push(`console page [${store}]: ${page.failure}`);
      if (gateway.errors > 0)
        figures.failures.push(`console page [${store}]: ${gateway.errors} socket errors/timeouts`);
    } catch (error) {
      const why = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      figures.consolePage[store] = { failure: why };
      figures.failures.push(`console page [${store}]: ${why}`);
    }
    const latency: ChildFigures<DeliveryLatency> = await runDeliveryLatency(options.gatewayDir, store, log);
    figures.latency[store] = latency;
    if ('failure' in latency) figures.failures.push(`delivery-latency [${store}]: ${latency.failure}`);
    else if (latency.figures.not_delivered > 0)
      figures.failures.push(
        `delivery-latency [${store}]: ${latency.figures.not_delivered} notifications not delivered`,
      );
    const window: ChildFigures<DeliveryWindow> = await runDeliveryWindow(
      options.gatewayDir,
      store,
      options.windowBacklog,
      log,
    );
    figures.window[store] = window;
    if ('failure' in window) figures.failures.push(`delivery-window [${store}]: ${window.failure}`);
  }
  return figures;
}

function consolePage(
  options: BenchOptions,
  dir: string,
  store: Store,
  databaseUrl: string,
): Promise<ConsolePageResult> {
  return runConsolePage({
    store,
    databaseUrl,
    tmpDir: dir,
    rows: options.consoleRows,
    durationS: options.durationS,
    warmupS: options.warmupS,
    gatewayDir: options.gatewayDir,
    log,
  });
}

/** The closing targets table (bench/targets.ts; docs/performance.md "Running the benchmarks"). */
function logTargets(
  options: BenchOptions,
  input: Omit<TargetInputs, 'initiation' | 'consolePage' | 'latency' | 'window'> &
    Partial<Pick<TargetInputs, 'initiation'>>,
  figures: Partial<TargetFigures>,
): void {
  log('');
  log(
    `Targets (bare = bare node:http in this run; initiation at ${options.connections} connections, ` +
      `${options.durationS} s; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}):`,
  );
  const lines = targetLines({
    initiation: {},
    consolePage: figures.consolePage ?? {},
    latency: figures.latency ?? {},
    window: figures.window ?? {},
    ...input,
  });
  log(targetsTable(lines));
  const judged = lines.filter((l) => l.verdict === 'met' || l.verdict.startsWith('NOT met'));
  const met = judged.filter((l) => l.verdict === 'met').length;
  log(
    `${met} of ${judged.length} judged targets met` +
      (lines.length > judged.length ? `; ${lines.length - judged.length} not run or not judged` : '') +
      '. A loaded machine makes every figure pessimistic: compare with the load average above.',
  );
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
