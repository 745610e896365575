// CSV cells: quoting by RFC 4180 and no formula injection, while our own numbers stay numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csvRow } from '../../../src/http/console/csv.ts';

test('quotes commas, quotes and line breaks; doubles quotes', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell(null), '');
  assert.equal(csvRow(['a', 1, null]), 'a,1,\r\n');
});

test('cells a spreadsheet would evaluate get an apostrophe; plain numbers do not', () => {
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvCell('+1+1'), "'+1+1");
  assert.equal(csvCell('-2+3'), "'-2+3");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('\tx'), "'\tx");
  assert.equal(csvCell('-12.5000'), '-12.5000');
  assert.equal(csvCell('100.0000'), '100.0000');
  assert.equal(csvCell(-3n), '-3');
});
