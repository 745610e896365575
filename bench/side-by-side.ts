// Two checkouts' gateways measured at the same time under the same fixed-rate load: CPU per
// request of each (HTTP thread, and all threads). On a shared or noisy machine one run after
// another cannot tell a 15 % change from the drift between runs (bare node:http moved from 24k
// to 41k req/s within one `npm run bench` here); side by side, both gateways live through the
// same drift, so their ratio is what changed.
//
//   node bench/side-by-side.ts <dirA> <dirB> [--store sqlite|postgres] [--rate N] [--connections N]
//                              [--seconds S] [--rounds R] [--mixed]
// e.g. git worktree add --detach /tmp/before main && ln -s "$PWD/node_modules" /tmp/before/
//      node bench/side-by-side.ts /tmp/before . --rate 2500
//
// Each gateway gets its own fresh store and merchant and `rate` requests per second over
// `connections` keep-alive connections (autocannon, this process): new initiations, or with
// `--mixed` the mixed load of `npm run bench` (70 % initiation, 20 % status query, 10 % sandbox
// completion, each completion's notification sent to a receiver on 127.0.0.1 in this process).
// Pick a rate both can sustain (compare the answered counts): past saturation CPU per request
// also measures queueing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchMerchant, killAllChildren, startServer, type ServerChild } from './children.ts';
import { gatewayEnv } from './gateway-run.ts';
import { runLoad, type LoadSpec } from './load.ts';
import { mixedTracker, startReceiver } from './mixed-load.ts';
import { createBenchDatabase, type BenchDatabase } from './postgres-database.ts';
import { initiationBodyFactory, type Credentials } from './request-bodies.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    store: { type: 'string', default: 'sqlite' },
    rate: { type: 'string', default: '2500' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
    mixed: { type: 'boolean', default: false },
  },
});
const mixed = values.mixed === true;
const unit = mixed ? 'request' : 'initiation';
const dirs = positionals;
const rate = Number(values.rate);
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (
  dirs.length !== 2 ||
  !['sqlite', 'postgres'].includes(values.store!) ||
  ![rate, connections, seconds, rounds].every((n) => Number.isInteger(n) && n > 0 && n <= 100_000)
) {
  console.error(
    'usage: node bench/side-by-side.ts <dirA> <dirB> [--store sqlite|postgres] ' +
      '[--rate N] [--connections N] [--seconds S] [--rounds R] [--mixed]',
  );
  process.exit(2);
}

type Gateway = { label: string; server: ServerChild; creds: Credentials; makeBody: (trackid: string) => string };
const tmp = mkdtempSync(join(tmpdir(), 'side-by-side-'));
const databases: BenchDatabase[] = [];
// Both gateways notify the same receiver (mixed load only).
const receiver = mixed ? await startReceiver() : undefined;

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
  return { label, server, creds, makeBody: initiationBodyFactory(creds, receiver?.url) };
}

let n = 0;
/** `s` seconds of fixed-rate load on one gateway: initiations, or the mixed load. */
function drive(gateway: Gateway, s: number) {
  const trackid = () => `sbs-${gateway.label}-${++n}`;
  const spec: LoadSpec = {
    url: gateway.server.url,
    path: '/transaction/s2s',
    connections,
    durationS: s,
    overallRate: rate,
    serverPid: gateway.server.process.pid,
  };
  if (!mixed) return runLoad({ ...spec, body: () => gateway.makeBody(trackid()) });
  const tracker = mixedTracker(
    gateway.creds,
    () => {
      const id = trackid();
      return { trackid: id, body: gateway.makeBody(id) };
    },
    () => {},
  );
  return runLoad({ ...spec, body: tracker.next, onResponse: tracker.onResponse });
}

try {
  const gateways = [await start(dirs[0]!, 'A'), await start(dirs[1]!, 'B')];
  await Promise.all(gateways.map((g) => drive(g, 2))); // warm-up
  const totals = gateways.map(() => ({ main: 0, all: 0, answered: 0 }));
  for (let round = 1; round <= rounds; round++) {
    const loads = await Promise.all(gateways.map((g) => drive(g, seconds)));
    gateways.forEach((g, i) => {
      const load = loads[i]!;
      const answered = load.statusCodes['200'] ?? 0;
      const main = ((load.mainThreadUsPerRequest ?? 0) * load.requests) / 1e6;
      const all = ((load.serverUsPerRequest ?? 0) * load.requests) / 1e6;
      Object.assign(totals[i]!, {
        main: totals[i]!.main + main,
        all: totals[i]!.all + all,
        answered: totals[i]!.answered + answered,
      });
      console.log(
        `round ${round} ${g.label}: ${answered} answered 200 (${load.requests - answered} other), ` +
          `p99 ${load.p99Ms.toFixed(1)} ms, HTTP thread ${((main * 1e6) / answered).toFixed(1)} ` +
          `µs/${unit}, all threads ${((all * 1e6) / answered).toFixed(1)} µs`,
      );
    });
  }
  const us = totals.map((t) => ({ main: (t.main * 1e6) / t.answered, all: (t.all * 1e6) / t.answered }));
  gateways.forEach((g, i) =>
    console.log(
      `${g.label} (${dirs[i]}): ${totals[i]!.answered} answered; ` +
        `HTTP thread ${us[i]!.main.toFixed(1)} µs/${unit}, all threads ${us[i]!.all.toFixed(1)} µs`,
    ),
  );
  console.log(
    `B ÷ A: HTTP thread ${(us[1]!.main / us[0]!.main).toFixed(2)}×, ` +
      `all threads ${(us[1]!.all / us[0]!.all).toFixed(2)}× (${values.store}, ` +
      `${mixed ? 'mixed load' : 'initiations'}, ${rate}/s each over ${connections} connections)`,
  );
  for (const g of gateways) await g.server.stop(5000);
  if (receiver) console.log(`notifications received: ${receiver.received()}`);
} finally {
  await receiver?.close();
  killAllChildren();
  for (const database of databases) await database.drop();
  rmSync(tmp, { recursive: true, force: true });
}
