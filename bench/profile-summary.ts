// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time per
// area (our src/ files, each npm package, Node internals, GC, idle) and per function, plus
// inclusive time of our own functions (time spent in them or anything they called).
import { readFileSync } from 'node:fs';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

export type ProfileSummary = {
  totalMs: number;
  byArea: Array<{ area: string; ms: number; share: number }>;
  bySelf: Array<{ fn: string; area: string; ms: number; share: number }>;
  ownInclusive: Array<{ fn: string; ms: number; share: number }>;
};

/** Where a frame's code lives: "src/http/…", "pkg:fastify", "node:internal", or a V8 pseudo-frame. */
export function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : 'native (V8 builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  const own = /\/((?:src|bench)\/.+)$/.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:'))
    return url.startsWith('node:internal/') ? `node:${url.slice('node:internal/'.length).split('/')[0]}` : url;
  return url;
}

function label(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  return `${name} ${areaOf(frame)}:${frame.lineNumber + 1}`;
}

export function summariseProfile(path: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const area = new Map<string, number>();
  const fnSelf = new Map<string, { area: string; us: number }>();
  const ownIncl = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    total += us;
    const a = areaOf(node.callFrame);
    area.set(a, (area.get(a) ?? 0) + us);
    const key = label(node.callFrame);
    const entry = fnSelf.get(key) ?? { area: a, us: 0 };
    entry.us += us;
    fnSelf.set(key, entry);
    // Inclusive time of our own functions: count this sample once for each distinct src/ frame on the stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (!/\/src\//.test(frame.url)) continue;
      const k = label(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      ownIncl.set(k, (ownIncl.get(k) ?? 0) + us);
    }
  }
  const ms = (us: number) => us / 1000;
  const share = (us: number) => (total > 0 ? us / total : 0);
  return {
    totalMs: ms(total),
    byArea: [...area]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([a, us]) => ({ area: a, ms: ms(us), share: share(us) })),
    bySelf: [...fnSelf]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([fn, e]) => ({ fn, area: e.area, ms: ms(e.us), share: share(e.us) })),
    ownInclusive: [...ownIncl]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, ms: ms(us), share: share(us) })),
  };
}

export function formatProfileSummary(summary: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
  const lines = [
    `Profiled time of the gateway's main thread (start-up, warm-up and load; ` +
      `blocking calls such as fsync count as busy): ${(summary.totalMs / 1000).toFixed(1)} s`,
    '',
    'Self time by area:',
  ];
  for (const a of summary.byArea) lines.push(`  ${pct(a.share)}  ${a.area}`);
  lines.push('', 'Self time by function:');
  for (const f of summary.bySelf) lines.push(`  ${pct(f.share)}  ${f.fn}`);
  lines.push('', 'Inclusive time of our own (src/) functions:');
  for (const f of summary.ownInclusive) lines.push(`  ${pct(f.share)}  ${f.fn}`);
  return lines.join('\n');
}

// `node bench/profile-summary.ts <file.cpuprofile>` summarises a profile kept from an earlier run.
if (import.meta.main) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node bench/profile-summary.ts <file.cpuprofile>');
    process.exit(2);
  }
  console.log(formatProfileSummary(summariseProfile(file)));
}
