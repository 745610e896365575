// Runs the real gateway (`node src/cli/index.ts serve`) as a child process on a given store and
// drives its scenarios: unique initiations, idempotent replays, status queries, hosted page GETs and
// the mixed load (bench/mixed-load.ts). Afterwards it stops the gateway and checks the accounting: every
// acknowledged initiation is stored, no row exists that no request asked for, and every
// acknowledged completion is final with its outbox event and a sound ledger.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openStoreEngine } from '../src/store/engine.ts';
import { createBenchMerchant, startServer, type ServerChild } from './children.ts';
import { postgresBackendCpu } from './cpu-usage.ts';
import { runLoad, type LoadResult } from './load.ts';
import { accountCompletions, mixedTracker, startReceiver, type CompletionAccounting } from './mixed-load.ts';
import { seedDeadBacklog, seedRows } from './seed-rows.ts';
import { echoedTrackid, initiationBodyFactory, statusBody } from './request-bodies.ts';

export type ScenarioResult = {
  name: string;
  what: string;
  load: LoadResult;
  sampleFailure: string | undefined;
  /** PostgreSQL only: CPU µs of the database's backends per answered request (bench/cpu-usage.ts). */
  backendUsPerRequest?: number | undefined;
};

export type Accounting = {
  acknowledged: number;
  stored: number;
  /** Acknowledged (HTTP 200) but not stored: must be 0. */
  missing: number;
  /** Stored rows no sent request can explain: must be 0. */
  phantom: number;
  /** Requests cut off by the end of a run (sent, never answered) that did commit: allowed, ≤ connections per run. */
  cutOff: number;
  ok: boolean;
};

export type GatewayRunResult = {
  store: string;
  scenarios: ScenarioResult[];
  accounting: Accounting;
  /** Present when the mixed scenario ran. */
  completions: CompletionAccounting | undefined;
  exitCode: number | null;
  replayHeaderSeen: boolean;
  initiationOnly: boolean;
  mixedOnly: boolean;
  firstViews: boolean;
};

export type GatewayRunOptions = {
  label: string;
  databaseUrl: string;
  tmpDir: string;
  connections: number;
  durationS: number;
  warmupS: number;
  /** Extra node flags (e.g. --cpu-prof) for the gateway process. */
  nodeFlags?: string[];
  /** Only the unique-initiation scenario (the profiled run, the run over existing rows). */
  initiationOnly?: boolean;
  /** Only the unique-initiation and the mixed scenarios. */
  mixedOnly?: boolean;
  /** Finished transactions to put in the store before the gateway starts. */
  existingRows?: number;
  /** Result notifications due to a dead endpoint when the gateway starts (seed-rows.ts). */
  deadBacklog?: number;
  /** The checkout whose gateway runs (default: this one); for before/after comparisons. */
  gatewayDir?: string;
  /** Settings added to the gateway's environment (the KBank connector's). */
  extraEnv?: Record<string, string>;
  /**
   * Instead of the usual scenarios after initiation: the hosted page's first view of each new
   * payment (with a processor that makes the QR, one call to it per view), then repeat views.
   */
  firstViews?: boolean;
  log: (line: string) => void;
};

const CLI_PATH = 'src/cli/index.ts';
/** How many distinct payment pages the hosted page scenario cycles through. */
const HOSTED_PAGES = 500;
/** How many pages the first-view scenario may visit (more than a run can view). */
const FIRST_VIEW_PAGES = 200_000;

/**
 * The path and query of the redirectUrl in an initiation answer (the gateway's PUBLIC_BASE_URL is not where it
 * listens).
 */
function redirectPath(responseBody: string): string | undefined {
  const match = /"redirectUrl":"([^"]+)"/.exec(responseBody);
  if (!match) return undefined;
  const url = new URL(match[1]!);
  return url.pathname + url.search;
}

export function gatewayEnv(databaseUrl: string, tmpDir: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
    GATEWAY_SECRET_KEY_FILE: join(tmpDir, 'unused-secret.key'),
    HOST: '127.0.0.1',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    LOG_LEVEL: 'warn',
    GATEWAY_MODE: 'sandbox',
    CREATE_DEMO_MERCHANT: 'false',
    RATE_LIMIT_PER_MERCHANT_PER_SECOND: '1000000',
  };
}

/** Tracks every trackid a scenario generated and every answer it got, for the accounting check. */
class Ledger {
  readonly built: string[] = [];
  readonly answered = new Set<string>();
  readonly acknowledged = new Set<string>();
}

export async function runGateway(options: GatewayRunOptions): Promise<GatewayRunResult> {
  const env = { ...gatewayEnv(options.databaseUrl, options.tmpDir), ...options.extraEnv };
  const CLI = join(options.gatewayDir ?? '.', CLI_PATH);
  const creds = await createBenchMerchant(CLI, env);

  if (options.existingRows) {
    options.log(`  ${options.label}: seeding ${options.existingRows.toLocaleString('en-US')} existing transactions`);
    await seedRows(options.databaseUrl, creds.merchantid, options.existingRows);
  }
  if (options.deadBacklog) {
    options.log(
      `  ${options.label}: seeding ${options.deadBacklog.toLocaleString('en-US')} notifications due to a dead endpoint`,
    );
    await seedDeadBacklog(options.databaseUrl, creds.merchantid, options.deadBacklog);
  }
  const receiver = await startReceiver();
  const server = await startServer(
    [...(options.nodeFlags ?? []), CLI, 'serve'],
    env,
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const ledger = new Ledger();
  const scenarios: ScenarioResult[] = [];
  let exitCode: number | null = null;
  let replayHeaderSeen = false;
  let completed: string[] | undefined;
  try {
    const makeBody = initiationBodyFactory(creds);
    const runId = randomBytes(3).toString('hex');
    /** Hosted page paths (/transaction/Redirect?ID=…) of open payments, for the page scenario. */
    const pagePaths: string[] = [];

    const initiations = async (prefix: string, seconds: number): Promise<ScenarioResult> => {
      let n = 0;
      let sampleFailure: string | undefined;
      const load = await runLoad({
        url: server.url,
        path: '/transaction/s2s',
        connections: options.connections,
        serverPid: server.process.pid,
        durationS: seconds,
        body: () => {
          const trackid = `${prefix}${runId}-${++n}`;
          ledger.built.push(trackid);
          return makeBody(trackid);
        },
        onResponse: (status, body) => {
          const trackid = echoedTrackid(body);
          if (trackid) ledger.answered.add(trackid);
          if (status === 200 && trackid) {
            ledger.acknowledged.add(trackid);
            const pagePath = redirectPath(body);
            if (pagePath && pagePaths.length < (options.firstViews ? FIRST_VIEW_PAGES : HOSTED_PAGES))
              pagePaths.push(pagePath);
          } else sampleFailure ??= `${status} ${body.slice(0, 300)}`;
        },
      });
      return {
        name: 'gateway initiate (unique trackid)',
        what: 'POST /transaction/s2s, a new trackid per request: one durable write each',
        load,
        sampleFailure,
      };
    };

    /**
     * Customers loading payment pages, cycling through `paths`. Over HOSTED_PAGES pages each is
     * rendered once and then answered from the QR cache, as when a customer reloads or a page is
     * shared between tabs; in the first-view scenario every request is a page's first view.
     */
    const hostedPages = async (paths: string[], name: string, what: string): Promise<ScenarioResult> => {
      let i = 0;
      let sampleFailure: string | undefined;
      const load = await runLoad({
        url: server.url,
        method: 'GET',
        path: paths[0]!,
        nextPath: () => paths[i++ % paths.length]!,
        connections: options.connections,
        serverPid: server.process.pid,
        durationS: options.durationS,
        onResponse: (code, body) => {
          if (code !== 200 || !body.includes('<svg')) sampleFailure ??= `${code} ${body.slice(0, 300)}`;
        },
      });
      const wrapped = i > paths.length ? ` (${paths.length} pages, so views past the first are repeats)` : '';
      return { name, what: what + wrapped, load, sampleFailure };
    };

    if (options.warmupS > 0) {
      options.log(`  ${options.label}: warm-up ${options.warmupS} s`);
      await initiations('w', options.warmupS);
    }
    options.log(`  ${options.label}: initiate (unique trackid) ${options.durationS} s`);
    // On PostgreSQL the database's own CPU per initiation is reported beside the gateway's.
    const backends = /^postgres(ql)?:/.test(options.databaseUrl)
      ? await postgresBackendCpu(options.databaseUrl)
      : undefined;
    let unique: ScenarioResult;
    try {
      const before = await backends?.sample();
      unique = await initiations('s', options.durationS);
      if (backends && before && unique.load.requests > 0)
        unique.backendUsPerRequest = ((await backends.since(before)) * 1e6) / unique.load.requests;
    } finally {
      await backends?.close();
    }
    scenarios.push(unique);
    const measuredTrackids = [...ledger.acknowledged].filter((t) => t.startsWith('s'));

    if (options.firstViews && pagePaths.length > 0) {
      // The warm-up's and the measured initiations' payments: nobody has viewed them yet.
      options.log(`  ${options.label}: hosted page first views ${options.durationS} s`);
      scenarios.push(
        await hostedPages(
          pagePaths,
          'gateway hosted page first view',
          "GET /transaction/Redirect?ID=… of a payment never viewed: the processor's QR created, then the page",
        ),
      );
      const repeats = pagePaths.slice(0, HOSTED_PAGES);
      options.log(`  ${options.label}: hosted page repeat views ${options.durationS} s`);
      scenarios.push(
        await hostedPages(
          repeats,
          'gateway hosted page GET',
          `GET /transaction/Redirect?ID=… over ${repeats.length} viewed payments: one read + the page from its cache`,
        ),
      );
    } else if (!options.initiationOnly) {
      if (!options.mixedOnly) {
        // Replay: one stored transaction, then the identical request again and again.
        const replayTrackid = `r${runId}`;
        ledger.built.push(replayTrackid);
        const replayBody = makeBody(replayTrackid);
        const first = await postJson(server.url, '/transaction/s2s', replayBody);
        if (first.status !== 200)
          throw new Error(`the replay scenario's first initiation failed: ${first.status} ${first.text}`);
        ledger.answered.add(replayTrackid);
        ledger.acknowledged.add(replayTrackid);
        const again = await postJson(server.url, '/transaction/s2s', replayBody);
        replayHeaderSeen = again.status === 200 && again.replayed;
        options.log(`  ${options.label}: idempotent replay ${options.durationS} s`);
        let replayFailure: string | undefined;
        const replay = await runLoad({
          url: server.url,
          path: '/transaction/s2s',
          connections: options.connections,
          serverPid: server.process.pid,
          durationS: options.durationS,
          body: replayBody,
          onResponse: (status, body) => {
            if (status !== 200) replayFailure ??= `${status} ${body.slice(0, 300)}`;
          },
        });
        scenarios.push({
          name: 'gateway initiate (replay)',
          what: 'POST /transaction/s2s, the same request again: answered from the stored row',
          load: replay,
          sampleFailure: replayFailure,
        });

        // Status: cycle through the transactions the unique scenario created.
        if (measuredTrackids.length > 0) {
          options.log(`  ${options.label}: status query ${options.durationS} s`);
          const bodies = measuredTrackids.slice(0, 50_000).map((t) => statusBody(creds, t));
          let i = 0;
          let statusFailure: string | undefined;
          const status = await runLoad({
            url: server.url,
            path: '/transaction/status',
            connections: options.connections,
            serverPid: server.process.pid,
            durationS: options.durationS,
            body: () => bodies[i++ % bodies.length]!,
            onResponse: (code, body) => {
              if (code !== 200) statusFailure ??= `${code} ${body.slice(0, 300)}`;
            },
          });
          scenarios.push({
            name: 'gateway status query',
            what: 'POST /transaction/status by trackid: credential check + one indexed read',
            load: status,
            sampleFailure: statusFailure,
          });
        }

        if (pagePaths.length > 0) {
          options.log(`  ${options.label}: hosted page GET (${pagePaths.length} open payments) ${options.durationS} s`);
          scenarios.push(
            await hostedPages(
              pagePaths,
              'gateway hosted page GET',
              `GET /transaction/Redirect?ID=… over ${pagePaths.length} open payments: ` +
                'one read + the HTML page with its QR',
            ),
          );
        }
      }

      // Mixed: 70 % new initiations, 20 % status, 10 % completions of this scenario's payments.
      options.log(`  ${options.label}: mixed load ${options.durationS} s`);
      const makeMixedBody = initiationBodyFactory(creds, receiver.url);
      let m = 0;
      const tracker = mixedTracker(
        creds,
        () => {
          const trackid = `m${runId}-${++m}`;
          ledger.built.push(trackid);
          return { trackid, body: makeMixedBody(trackid) };
        },
        (status, body) => {
          const trackid = echoedTrackid(body);
          if (trackid) ledger.answered.add(trackid);
          if (status === 200 && trackid) ledger.acknowledged.add(trackid);
        },
      );
      const mixed = await runLoad({
        url: server.url,
        path: '/transaction/s2s',
        connections: options.connections,
        serverPid: server.process.pid,
        durationS: options.durationS,
        body: tracker.next,
        onResponse: tracker.onResponse,
      });
      completed = tracker.completed;
      const c = tracker.counts;
      scenarios.push({
        name: 'gateway mixed 70/20/10',
        what:
          `initiate / status / sandbox complete (sent ` +
          `${c.init} / ${c.status} / ${c.complete}; notifications to a loopback receiver)`,
        load: mixed,
        sampleFailure: tracker.sampleFailure(),
      });
    }
  } finally {
    exitCode = await stopGateway(server, options.log);
    await receiver.close();
  }

  const accounting = await account(options.databaseUrl, creds.merchantid, ledger);
  const completions = completed ? await accountCompletions(options.databaseUrl, completed) : undefined;
  return {
    store: options.label,
    scenarios,
    accounting,
    completions,
    exitCode,
    replayHeaderSeen,
    initiationOnly: options.initiationOnly ?? false,
    mixedOnly: options.mixedOnly ?? false,
    firstViews: options.firstViews ?? false,
  };
}

async function stopGateway(server: ServerChild, log: (line: string) => void): Promise<number | null> {
  const code = await server.stop();
  if (code !== 0) log(`  gateway exited with ${code}; its stderr:\n${server.stderr()}`);
  return code;
}

async function postJson(
  base: string,
  path: string,
  body: string,
): Promise<{ status: number; text: string; replayed: boolean }> {
  const response = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return {
    status: response.status,
    text: await response.text(),
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

/** Reads the stored trackids of the bench merchant after the gateway has stopped. */
async function account(databaseUrl: string, merchantId: string, ledger: Ledger): Promise<Accounting> {
  const store = openStoreEngine(databaseUrl);
  let stored: Set<string>;
  try {
    const rows = await store.db
      .selectFrom('transactions')
      .select('trackid')
      .where('merchant_id', '=', merchantId)
      .where('trackid', 'not like', 'seed-%')
      .where('trackid', 'not like', 'dead-%')
      .execute();
    stored = new Set(rows.map((r) => r.trackid));
  } finally {
    await store.close();
  }
  let missing = 0;
  for (const t of ledger.acknowledged) if (!stored.has(t)) missing += 1;
  const unanswered = new Set(ledger.built.filter((t) => !ledger.answered.has(t)));
  let cutOff = 0;
  let phantom = 0;
  for (const t of stored) {
    if (ledger.acknowledged.has(t)) continue;
    if (unanswered.has(t)) cutOff += 1;
    else phantom += 1;
  }
  return {
    acknowledged: ledger.acknowledged.size,
    stored: stored.size,
    missing,
    phantom,
    cutOff,
    ok: missing === 0 && phantom === 0 && stored.size === ledger.acknowledged.size + cutOff,
  };
}
