// The console's tables as phone cards (src/http/console/table-cards.ts): labels from the headings,
// the key class, spans, account names broken at their colons in text only, and markup without a
// headed table left exactly as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tablesAsCards } from '../../../src/http/console/table-cards.ts';

const HEAD = '<th>Created</th><th class="key">Track <span>id</span></th><th class="num key">Amount "THB"</th>';

test('each body cell gets its column heading as data-label, and the key class where the heading has it', () => {
  const out = tablesAsCards(
    `<table><thead><tr>${HEAD}</tr></thead>` +
      '<tbody><tr><td>2026-11-24 05:31:02 UTC+7</td><td class="mono"><a href="/x">t-1</a></td>' +
      '<td class="num">1,000.00</td></tr></tbody></table>',
  );
  assert.equal(
    out,
    `<table class="cards"><thead><tr>${HEAD}</tr></thead>` +
      '<tbody><tr><td data-label="Created">2026-11-24 05:31:02 UTC+7</td>' +
      '<td class="mono key" data-label="Track id"><a href="/x">t-1</a></td>' +
      '<td class="num key" data-label="Amount &quot;THB&quot;">1,000.00</td></tr></tbody></table>',
  );
});

test('a spanning cell keeps its tag and moves the columns after it along', () => {
  const out = tablesAsCards(
    '<table class="wide"><thead><tr><th>A</th><th>B</th><th>C</th></tr></thead>' +
      '<tbody><tr><td colspan="2">both</td><td>c</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></tbody></table>',
  );
  assert.equal(
    out,
    '<table class="wide cards"><thead><tr><th>A</th><th>B</th><th>C</th></tr></thead>' +
      '<tbody><tr><td colspan="2">both</td><td data-label="C">c</td></tr>' +
      '<tr><td data-label="A">a</td><td data-label="B">b</td><td data-label="C">c</td></tr></tbody></table>',
  );
});

test('account names break after their colons in text, never inside an attribute', () => {
  const out = tablesAsCards(
    '<table><thead><tr><th>Account</th></tr></thead><tbody><tr>' +
      '<td><a href="/console/ledger/merchant_payout:siam-coffee:THB">merchant_payout:siam-coffee:THB</a></td>' +
      '</tr></tbody></table>',
  );
  assert.match(out, /href="\/console\/ledger\/merchant_payout:siam-coffee:THB"/);
  assert.match(out, />merchant_payout:<wbr>siam-coffee:<wbr>THB</);
});

test('markup without a headed table is left as it is', () => {
  const markup = '<h1>x</h1><table><tr><td>no head</td></tr></table><p>merchant_payout:a:THB</p>';
  assert.equal(tablesAsCards(markup), markup);
});
