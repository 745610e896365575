// PostgreSQL array literals for the unnest() parameters of the batched initiation INSERT, built
// here instead of by `pg`: its encoder runs two regular-expression replacements per element, which
// for an initiation row (27 columns) cost ~1.5 µs of the HTTP thread against ~0.6 µs this way
// (docs/performance.md). Every element is double-quoted, so commas, braces, blanks and the word
// NULL inside a value stay data; inside the quotes only `"` and `\` need a backslash. A null
// element is an unquoted NULL. The text is what `pg` itself sends for the same array.
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

export function pgArrayLiteral(items: ReadonlyArray<string | number | bigint | null | undefined>): string {
  let literal = '{';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) literal += ',';
    const item = items[i];
    if (item === null || item === undefined) {
      literal += 'NULL';
      continue;
    }
    const text = String(item);
    literal += NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
  }
  return `${literal}}`;
}
