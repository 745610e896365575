// CPU time of a process, so each scenario can report how busy the server and the load
// generator were (on a shared 2-core machine, req/s alone cannot say who was the bottleneck).
import { readFileSync } from 'node:fs';

/** Linux: user + system CPU seconds of `pid` from /proc (clock ticks of 1/100 s); undefined elsewhere. */
export function processCpuSeconds(pid: number): number | undefined {
  return cpuSecondsFrom(`/proc/${pid}/stat`);
}

/**
 * Linux: CPU seconds of the process's MAIN thread only (its thread id is the process id): the
 * thread that runs HTTP. Worker threads (the SQLite writer) are left out.
 */
export function mainThreadCpuSeconds(pid: number): number | undefined {
  return cpuSecondsFrom(`/proc/${pid}/task/${pid}/stat`);
}

function cpuSecondsFrom(path: string): number | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds this process (the load generator) has used so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * Linux: the CPU of the PostgreSQL backends serving one database, the way bench/pg-named-statements.ts
 * reads one backend's: their process ids from pg_stat_activity, their CPU from /proc (PostgreSQL must
 * run on this machine). `sample()` returns CPU seconds per backend; `since(before)` the seconds used
 * after `before` by the backends alive now (a backend that ended in between is not counted, so the
 * figure is a lower bound; the gateway's pool keeps its connections open under load). The sampling
 * connection leaves itself out. Shared processes (WAL writer, checkpointer) are not included.
 */
export async function postgresBackendCpu(databaseUrl: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const sample = async (): Promise<Map<number, number>> => {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const seconds = processCpuSeconds(pid);
      if (seconds !== undefined) cpu.set(pid, seconds);
    }
    return cpu;
  };
  return {
    sample,
    async since(before: Map<number, number>): Promise<number> {
      let total = 0;
      for (const [pid, seconds] of await sample()) total += seconds - (before.get(pid) ?? 0);
      return total;
    },
    close: () => client.end(),
  };
}
