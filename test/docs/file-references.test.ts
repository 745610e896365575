// The docs and the code's comments point readers at files (`src/store/open-store.ts`,
// `store/postgres/wakeups.ts`, …). A file that moved leaves such a pointer dangling, and a reader
// following it finds nothing. Every path written in the docs, the README and the comments of
// src/ must name a file or folder that exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...filesUnder(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

/** Paths like `src/x/y.ts`, `store/repos/z.ts` or `docs/api.md` in a text; relative to src/ when not rooted. */
function referencedPaths(text: string): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(
    '(?<![\\w./-])((?:src|test|bench|docs|packages|app|domain|store|http|delivery|cli|connectors|dev)' +
      '\\/[\\w./-]*\\w\\.(?:ts|md|mjs|php|json))',
    'g',
  );
  for (const match of text.matchAll(pattern)) found.add(match[1]!);
  return [...found];
}

function resolves(path: string, from: string): boolean {
  const rooted = ['src/', 'test/', 'bench/', 'docs/', 'packages/'].some((p) => path.startsWith(p));
  if (rooted) return existsSync(join(root, path));
  // Comments name src/ files without the prefix (`store/open-store.ts`), or relative to their own folder.
  return existsSync(join(root, 'src', path)) || existsSync(join(root, from, '..', path));
}

test('every file path named in the docs, the README and src/ comments exists', () => {
  const sources = ['README.md', ...filesUnder('docs', '.md'), ...filesUnder('src', '.ts')];
  const dangling: string[] = [];
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const path of referencedPaths(text)) {
      if (!resolves(path, file)) dangling.push(`${file}: ${path}`);
    }
  }
  assert.deepEqual(dangling, [], `paths that name no file (from ${relative(root, root) || '.'})`);
});
