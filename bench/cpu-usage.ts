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
