// The console's payments page as a target of `npm run bench` (docs/performance.md "Running the
// benchmarks"): the gateway's CPU per GET /console/payments (the first page, 50 rows) for a logged-in
// operator over a store seeded with `rows` payments (bench/console-seed.ts, as bench/console-payments.ts
// does with its million), against bare node:http serving the same HTML bytes in the same run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runNode, startServer } from './children.ts';
import { DAY, logIn, seedConsolePayments } from './console-seed.ts';
import { postgresBackendCpu } from './cpu-usage.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad, type LoadResult } from './load.ts';

/** Console pages are opened by a few people at once, not by 64 shops' servers. */
export const CONSOLE_CONNECTIONS = 8;

export type ConsolePageResult = {
  store: string;
  rows: number;
  /** Payment rows on the page measured (the target is for 50). */
  pageRows: number;
  gateway: LoadResult;
  bare: LoadResult;
  backendUsPerRequest: number | undefined;
  /** The first answer that was not a 200 with the page, if any. */
  failure: string | undefined;
};

export async function runConsolePage(options: {
  store: string;
  databaseUrl: string;
  tmpDir: string;
  rows: number;
  durationS: number;
  warmupS: number;
  gatewayDir: string;
  log: (line: string) => void;
}): Promise<ConsolePageResult> {
  const { log } = options;
  const env = gatewayEnv(options.databaseUrl, options.tmpDir);
  const cli = join(options.gatewayDir, 'src/cli/index.ts');
  for (const id of ['big', 'small'])
    await runNode(
      [cli, 'merchant', 'create', '--id', id, '--name', `Shop ${id}`].concat([
        '--payout-currency',
        'THB',
        '--payout-account',
        '1234567890',
      ]),
      env,
    );
  const operator = JSON.parse(
    (await runNode([cli, 'operator', 'create', '--username', 'bench', '--json'], env)).trim().split('\n').at(-1)!,
  ) as { password: string };
  log(`  console page [${options.store}]: seeding ${options.rows.toLocaleString('en-US')} payments`);
  await seedConsolePayments(options.databaseUrl, Date.now() - 30 * DAY, options.rows);

  const server = await startServer([cli, 'serve'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  try {
    const cookie = await logIn(server.url, 'operator', 'bench', operator.password);
    const page = await (await fetch(`${server.url}/console/payments`, { headers: { cookie } })).text();
    // Body rows: a <tr> whose first cell is a <td> (the heading's are <th>; cells carry attributes).
    const pageRows = [...page.matchAll(/<tr\b[^>]*>\s*<td\b/g)].length;
    const html = join(options.tmpDir, `console-page-${options.store}.html`);
    writeFileSync(html, page);

    const spec = { path: '/console/payments', method: 'GET' as const, connections: CONSOLE_CONNECTIONS };
    const bareServer = await startServer(
      ['bench/baseline-html-server.ts'],
      { BASELINE_HTML_FILE: html },
      /listening (http:\/\/127\.0\.0\.1:\d+)/,
    );
    let bare: LoadResult;
    try {
      const bareSpec = { ...spec, url: bareServer.url, serverPid: bareServer.process.pid };
      if (options.warmupS > 0) await runLoad({ ...bareSpec, durationS: options.warmupS });
      log(`  console page [${options.store}]: bare node:http, same HTML (${page.length} bytes) ${options.durationS} s`);
      bare = await runLoad({ ...bareSpec, durationS: options.durationS });
    } finally {
      await bareServer.stop(5000);
    }

    let failure: string | undefined;
    const gatewaySpec = {
      ...spec,
      url: server.url,
      headers: { cookie },
      serverPid: server.process.pid,
      onResponse: (status: number, body: string) => {
        if (status !== 200 || !body.includes('<tbody>'))
          failure ??= `${status} ${body.slice(0, 200).replace(/\s+/g, ' ')}`;
      },
    };
    if (options.warmupS > 0) await runLoad({ ...gatewaySpec, durationS: options.warmupS });
    log(`  console page [${options.store}]: gateway GET /console/payments (${pageRows} rows) ${options.durationS} s`);
    const backends = /^postgres(ql)?:/.test(options.databaseUrl)
      ? await postgresBackendCpu(options.databaseUrl)
      : undefined;
    try {
      const before = await backends?.sample();
      const gateway = await runLoad({ ...gatewaySpec, durationS: options.durationS });
      const backendUsPerRequest =
        backends && before && gateway.requests > 0
          ? ((await backends.since(before)) * 1e6) / gateway.requests
          : undefined;
      return { store: options.store, rows: options.rows, pageRows, gateway, bare, backendUsPerRequest, failure };
    } finally {
      await backends?.close();
    }
  } finally {
    await server.stop();
  }
}
