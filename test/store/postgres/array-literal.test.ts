// pgArrayLiteral (store/pg-array-literal.ts) must send PostgreSQL exactly what `pg`'s own array
// encoder sends, for every kind of value an initiation row holds; the real round trip through
// PostgreSQL is in transaction-inserter.test.ts ("text that needs escaping …").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { pgArrayLiteral } from '../../../src/store/postgres/array-literal.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

const AWKWARD = [
  '',
  ' ',
  'NULL',
  'null',
  'plain',
  'a,b',
  '{x}',
  '"quoted"',
  'back\\slash',
  '\\"',
  'ends with \\',
  'new\nline\ttab',
  'สมชาย ใจดี',
  '😀',
  "O'Brien",
];

test('the same literal as pg: awkward text, nulls, numbers and bigints', () => {
  const cases: Array<Array<string | number | bigint | null | undefined>> = [
    [],
    AWKWARD,
    [null, 'x', null],
    ['x', undefined, 'y'],
    [0, 1_763_700_000_000, -5],
    [1_500_000n, 0n, 9_007_199_254_740_993n],
    [...AWKWARD, null, 42, 7n],
  ];
  for (const items of cases)
    assert.equal(
      pgArrayLiteral(items),
      prepareValue(items.map((v) => (v === undefined ? null : v))),
      JSON.stringify(items, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    );
});
