// Builds dist/: ESM JavaScript and .d.ts from src/ with the repository's TypeScript.
// The sources import each other with `.ts` (so Node runs them unbuilt in the gateway's repo);
// tsc rewrites those to `.js` in the JavaScript, and this script does the same in the .d.ts files,
// which tsc leaves as written.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
rmSync(new URL('dist/', import.meta.url), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: here, stdio: 'inherit' });
for (const name of readdirSync(new URL('dist/', import.meta.url))) {
  if (!name.endsWith('.d.ts') && !name.endsWith('.js')) continue;
  const file = new URL(`dist/${name}`, import.meta.url);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'");
  if (fixed !== text) writeFileSync(file, fixed);
  if (/from\s+'\.{1,2}\/[^']+\.ts'/.test(fixed)) throw new Error(`${name} still imports a .ts file`);
}
