// Two checkouts' gateways measured at the same time under the same fixed-rate load: CPU per
// initiation of each (HTTP thread, and all threads). On a shared or noisy machine one run after
// another cannot tell a 15 % change from the drift between runs (bare node:http moved from 24k
// to 41k req/s within one `npm run bench` here); side by side, both gateways live through the
// same drift, so their ratio is what changed.
//
//   node bench/side-by-side.ts <dirA> <dirB> [--store sqlite|postgres] [--rate N] [--connections N]
//                              [--seconds S] [--rounds R]
// e.g. git worktree add --detach /tmp/before main && ln -s "$PWD/node_modules" /tmp/before/
//      node bench/side-by-side.ts /tmp/before . --rate 2500
//
// Each gateway gets its own fresh store and merchant and `rate` initiations per second over
// `connections` keep-alive connections (autocannon, this process). Pick a rate both can sustain
// (compare the answered counts): past saturation CPU per request also measures queueing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createBenchMerchant, killAllChildren, startServer, type ServerChild } from './children.ts';
import { mainThreadCpuSeconds, processCpuSeconds } from './cpu-usage.ts';
import { gatewayEnv } from './gateway-run.ts';
import { createBenchDatabase, type BenchDatabase } from './postgres-database.ts';
import { initiationBodyFactory } from './request-bodies.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    store: { type: 'string', default: 'sqlite' },
    rate: { type: 'string', default: '2500' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
  },
});
const dirs = positionals;
const rate = Number(values.rate);
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (dirs.length !== 2 || !['sqlite', 'postgres'].includes(values.store!) || ![rate, connections, seconds, rounds].every((n) => Number.isInteger(n) && n > 0 && n <= 100_000)) {
  console.error('usage: node bench/side-by-side.ts <dirA> <dirB> [--store sqlite|postgres] [--rate N] [--connections N] [--seconds S] [--rounds R]');
  process.exit(2);
}

type Gateway = { label: string; server: ServerChild; makeBody: (trackid: string) => string };
const tmp = mkdtempSync(join(tmpdir(), 'side-by-side-'));
const databases: BenchDatabase[] = [];

async function start(dir: string, label: string): Promise<Gateway> {
  let url = `sqlite:${join(tmp, `${label}.db`)}`;
  if (values.store === 'postgres') {
    const database = await createBenchDatabase();
    databases.push(database);
    url = database.url;
  }
  const env = gatewayEnv(url, tmp);
  const cli = join(dir, 'src/cli/index.ts');
  const creds = await createBenchMerchant(cli, env, 'Side by side');
  const server = await startServer([cli, 'serve'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { label, server, makeBody: initiationBodyFactory(creds) };
}

let n = 0;
/** Fixed-rate initiations for `s` seconds; resolves with the number answered 200. */
function drive(gateway: Gateway, s: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let ok = 0;
    const instance = autocannon(
      {
        url: gateway.server.url,
        connections,
        duration: s,
        overallRate: rate,
        requests: [{ method: 'POST', path: '/transaction/s2s', headers: { 'content-type': 'application/json' }, setupRequest: (request: autocannon.Request) => ({ ...request, body: gateway.makeBody(`sbs-${gateway.label}-${++n}`) }) }],
      },
      (error) => (error ? reject(error) : resolve(ok)),
    );
    instance.on('response', (_client, status) => {
      if (status === 200) ok += 1;
    });
  });
}

try {
  const gateways = [await start(dirs[0]!, 'A'), await start(dirs[1]!, 'B')];
  await Promise.all(gateways.map((g) => drive(g, 2))); // warm-up
  const totals = gateways.map(() => ({ main: 0, all: 0, answered: 0 }));
  for (let round = 1; round <= rounds; round++) {
    const before = gateways.map((g) => [mainThreadCpuSeconds(g.server.process.pid!) ?? 0, processCpuSeconds(g.server.process.pid!) ?? 0] as const);
    const answered = await Promise.all(gateways.map((g) => drive(g, seconds)));
    gateways.forEach((g, i) => {
      const main = (mainThreadCpuSeconds(g.server.process.pid!) ?? 0) - before[i]![0];
      const all = (processCpuSeconds(g.server.process.pid!) ?? 0) - before[i]![1];
      Object.assign(totals[i]!, { main: totals[i]!.main + main, all: totals[i]!.all + all, answered: totals[i]!.answered + answered[i]! });
      console.log(`round ${round} ${g.label}: ${answered[i]} answered 200, HTTP thread ${((main * 1e6) / answered[i]!).toFixed(1)} µs/initiation, all threads ${((all * 1e6) / answered[i]!).toFixed(1)} µs`);
    });
  }
  const us = totals.map((t) => ({ main: (t.main * 1e6) / t.answered, all: (t.all * 1e6) / t.answered }));
  gateways.forEach((g, i) => console.log(`${g.label} (${dirs[i]}): ${totals[i]!.answered} answered; HTTP thread ${us[i]!.main.toFixed(1)} µs/initiation, all threads ${us[i]!.all.toFixed(1)} µs`));
  console.log(`B ÷ A: HTTP thread ${(us[1]!.main / us[0]!.main).toFixed(2)}×, all threads ${(us[1]!.all / us[0]!.all).toFixed(2)}× (${values.store}, ${rate}/s each over ${connections} connections)`);
  for (const g of gateways) await g.server.stop(5000);
} finally {
  killAllChildren();
  for (const database of databases) await database.drop();
  rmSync(tmp, { recursive: true, force: true });
}
