// Fails when a line of code is wider than 120 columns. Prettier (npm run format) wraps code at
// that width but leaves long strings, comments and template literals alone; this catches those.
// Width counts characters, not bytes (Thai text is three bytes a character in UTF-8).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && !file.startsWith('packages/client/dist/'));

const wide: string[] = [];
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const width = [...line].length;
      if (width > MAX) wide.push(`${file}:${index + 1}: ${width} columns`);
    });
}
if (wide.length > 0) {
  console.error(`${wide.length} lines are wider than ${MAX} columns:\n${wide.join('\n')}`);
  process.exit(1);
}
console.log(`line width: ${files.length} files, no line wider than ${MAX} columns`);
