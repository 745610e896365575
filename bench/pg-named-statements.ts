// Unnamed vs named prepared statements on PostgreSQL, one connection, the request path's kind of
// lookup: one 28-column row by a unique key out of 100,000. Prints the CPU per lookup of this
// process and of the PostgreSQL backend serving it (from /proc), alternating the two kinds.
//
//   node_modules/.bin/node bench/pg-named-statements.ts [--lookups 20000] [--rounds 2]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createBenchDatabase } from './postgres-database.ts';

const { values } = parseArgs({
  options: { lookups: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '2' } },
});
const lookups = Math.max(1000, Math.min(200_000, Number(values.lookups)));
const rounds = Math.max(1, Math.min(10, Number(values.rounds)));

/** CPU seconds of a process (Linux /proc; utime + stime in 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const database = await createBenchDatabase();
const client = new pg.Client({ connectionString: database.url });
try {
  await client.connect();
  const columns = Array.from({ length: 25 }, (_, i) => `c${i} text not null default 'value ${i} xxxxxxxxxx'`).join(
    ', ',
  );
  await client.query(
    `create table t (id text primary key, redirect_id text not null unique, ` +
      `amount bigint not null default 1500000, ${columns})`,
  );
  await client.query(`insert into t (id, redirect_id) select 'id' || g, 'r' || g from generate_series(1, 100000) g`);
  await client.query('analyze t');
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const text = 'select * from t where redirect_id = $1';
  console.log(
    `${lookups} lookups per phase, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 1; round <= rounds; round++) {
    for (const kind of ['unnamed', 'named'] as const) {
      const backendBefore = cpuSeconds(backend);
      const ownBefore = process.cpuUsage();
      for (let i = 0; i < lookups; i++) {
        const key = [`r${((i * 7919) % 100000) + 1}`];
        await client.query(kind === 'named' ? { name: 'by_redirect', text, values: key } : { text, values: key });
      }
      const own = process.cpuUsage(ownBefore);
      const backendUs = ((cpuSeconds(backend) - backendBefore) * 1e6) / lookups;
      console.log(
        `round ${round} ${kind.padEnd(7)}  node ${((own.user + own.system) / lookups).toFixed(1)} ` +
          `µs/lookup  backend ${backendUs.toFixed(1)} µs/lookup`,
      );
    }
  }
} finally {
  await client.end().catch(() => {});
  await database.drop();
}
