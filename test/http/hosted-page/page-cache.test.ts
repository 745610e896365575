// The page cache's parts on their own: filling the holes of a rendered page, and the bounded
// cache that keeps a page only for the state it was rendered from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedPage, RenderedPageCache, SLOT_MARKERS, SlottedText } from '../../../src/http/hosted-page/page-cache.ts';

const m = SLOT_MARKERS;

test('fill puts each value into every one of its holes, as UTF-8, and nothing of the markers remains', () => {
  const text = new SlottedText(
    `<style nonce="${m.nonce}">฿</style><p data-ms="${m.remainingMs}">${m.remainingText}</p>` +
      `<i>${m.csrf}</i><a href="/r?x=1${m.returnSignature}#f"></a><script nonce="${m.nonce}"></script>`,
  );
  assert.deepEqual(text.slots, ['nonce', 'remainingMs', 'remainingText', 'csrf', 'returnSignature', 'nonce']);
  const out = text.fill({
    nonce: 'NONCE+/=',
    csrf: 'tok-én',
    remainingMs: '123',
    remainingText: '0:01',
    returnSignature: '&amp;ts=1',
  });
  assert.equal(
    out.toString('utf8'),
    '<style nonce="NONCE+/=">฿</style><p data-ms="123">0:01</p><i>tok-én</i>' +
      '<a href="/r?x=1&amp;ts=1#f"></a><script nonce="NONCE+/="></script>',
  );
  assert.doesNotMatch(out.toString('utf8'), /gwslot/);
});

test('every fill is a new buffer: one response cannot change or share another', () => {
  const text = new SlottedText(`a${m.nonce}b`);
  const one = text.fill({ nonce: 'x', csrf: '', remainingMs: '', remainingText: '', returnSignature: '' });
  const two = text.fill({ nonce: 'y', csrf: '', remainingMs: '', remainingText: '', returnSignature: '' });
  one[1] = 'z'.charCodeAt(0);
  assert.equal(two.toString(), 'ayb');
  assert.equal(
    text.fill({ nonce: 'w', csrf: '', remainingMs: '', remainingText: '', returnSignature: '' }).toString(),
    'awb',
  );
});

test('text without holes, and a policy split at its nonce', () => {
  assert.equal(
    new SlottedText('plain ฿')
      .fill({ nonce: 'n', csrf: '', remainingMs: '', remainingText: '', returnSignature: '' })
      .toString(),
    'plain ฿',
  );
  const page = cachedPage('<p></p>', `script-src 'nonce-${m.nonce}'; style-src 'nonce-${m.nonce}'`);
  assert.equal(page.cspParts.join('abc'), "script-src 'nonce-abc'; style-src 'nonce-abc'");
  assert.equal(page.hasCsrfForm, false);
  assert.equal(cachedPage(`<input value="${m.csrf}">`, '').hasCsrfForm, true);
});

test('a page is returned only for the fingerprint it was stored with; a changed one drops it', () => {
  const cache = new RenderedPageCache(1_000_000);
  const page = cachedPage('<p>open</p>', '');
  cache.set('tx-1', 'en', 'PROCESSING', page);
  assert.equal(cache.get('tx-1', 'en', 'PROCESSING'), page);
  assert.equal(cache.get('tx-1', 'th', 'PROCESSING'), undefined, 'another language');
  assert.equal(cache.get('tx-2', 'en', 'PROCESSING'), undefined, 'another transaction');
  assert.equal(cache.get('tx-1', 'en', 'SUCCESS'), undefined, 'the payment changed');
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
  assert.equal(cache.get('tx-1', 'en', 'PROCESSING'), undefined, 'and stays gone');
});

test('the cache is bounded in bytes: the least recently used pages go first; an oversized page is not kept', () => {
  const page = () => cachedPage('x'.repeat(100), '');
  const cache = new RenderedPageCache(400);
  for (const id of ['a', 'b', 'c']) cache.set(id, 'en', 'f', page());
  assert.equal(cache.size, 3);
  cache.get('a', 'en', 'f'); // a is now the most recently used
  cache.set('d', 'en', 'f', page());
  assert.ok(cache.bytes <= 400, String(cache.bytes));
  assert.ok(cache.get('a', 'en', 'f'));
  assert.equal(cache.get('b', 'en', 'f'), undefined, 'the least recently used was dropped');
  cache.set('e', 'en', 'f', cachedPage('x'.repeat(500), ''));
  assert.equal(cache.get('e', 'en', 'f'), undefined);
  assert.ok(cache.bytes <= 400);
  cache.set('a', 'en', 'f2', page()); // replacing an entry does not count it twice
  assert.ok(cache.bytes <= 400);
  assert.throws(() => new RenderedPageCache(0), RangeError);
});
