// Fails when a line of code is wider than 120 columns. Prettier (npm run format) wraps code at
// that width but leaves long strings, comments and template literals alone; this catches those.
// Width counts characters, not bytes (Thai text is three bytes a character in UTF-8).
//
// Markup is exempt: a line inside an html`…` tagged template is page content whose bytes are
// served and asserted as they are, and a line break inside it would change them. The console's
// translation table (texts.ts) is exempt for the same reason.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const EXEMPT_FILES = new Set(['src/http/console/texts.ts', 'src/http/hosted-page/texts.ts']);

/** For each line, whether any of it lies inside an html`…` template (nested `${…}` code excepted). */
export function linesInMarkup(text: string): boolean[] {
  const marked = new Array<boolean>(text.split('\n').length).fill(false);
  // A stack of contexts: code (with its open braces) or a template (html-tagged or not).
  type Context = { kind: 'code'; braces: number } | { kind: 'template'; html: boolean };
  const stack: Context[] = [{ kind: 'code', braces: 0 }];
  let line = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\n') {
      line++;
      continue;
    }
    if (top.kind === 'template') {
      if (top.html) marked[line] = true;
      if (c === '\\') i++;
      else if (c === '`') stack.pop();
      else if (c === '$' && text[i + 1] === '{') {
        stack.push({ kind: 'code', braces: 0 });
        i++;
      }
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      for (let j = i; j < (end < 0 ? text.length : end); j++) if (text[j] === '\n') line++;
      i = end < 0 ? text.length : end + 1;
    } else if (c === "'" || c === '"') {
      for (i++; i < text.length && text[i] !== c && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    } else if (c === '`') {
      stack.push({ kind: 'template', html: /\bhtml\s*$/.test(text.slice(Math.max(0, i - 8), i)) });
    } else if (c === '{') top.braces++;
    else if (c === '}') {
      if (top.braces === 0 && stack.length > 1) stack.pop();
      else top.braces--;
    }
  }
  return marked;
}

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && !file.startsWith('packages/client/dist/') && !EXEMPT_FILES.has(file));

const wide: string[] = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const markup = linesInMarkup(text);
  text.split('\n').forEach((line, index) => {
    const width = [...line].length;
    if (width > MAX && !markup[index]) wide.push(`${file}:${index + 1}: ${width} columns`);
  });
}
if (wide.length > 0) {
  console.error(`${wide.length} lines are wider than ${MAX} columns:\n${wide.join('\n')}`);
  process.exit(1);
}
console.log(`line width: ${files.length} files, no line wider than ${MAX} columns (markup exempt)`);
