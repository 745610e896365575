// The hosted page's QR cache: one render per (transaction, language), never a stale image,
// bounded memory, failures not kept. Uses the real renderer behind a counter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QrSvgCache } from '../../../src/http/hosted-page/qr-svg-cache.ts';
import { renderQrSvg } from '../../../src/http/hosted-page/qr-svg.ts';
import { formatDeadline } from '../../../src/http/hosted-page/page-view.ts';

function countingRenderer() {
  const calls: string[] = [];
  const render = (payload: string, label: string) => {
    calls.push(`${payload}|${label}`);
    return renderQrSvg(payload, label);
  };
  return { calls, render };
}

test('the same transaction and language is rendered once and answered with the identical SVG', async () => {
  const { calls, render } = countingRenderer();
  const cache = new QrSvgCache(10, render);
  const first = await cache.svgFor('tx-1', 'th', 'PAYLOAD-1', 'label th');
  const again = await cache.svgFor('tx-1', 'th', 'PAYLOAD-1', 'label th');
  assert.equal(again, first);
  assert.equal(first, await renderQrSvg('PAYLOAD-1', 'label th'), 'the cached SVG is what the renderer produces');
  assert.equal(calls.length, 1);
});

test('another language or another transaction is its own entry', async () => {
  const { calls, render } = countingRenderer();
  const cache = new QrSvgCache(10, render);
  const th = await cache.svgFor('tx-1', 'th', 'PAYLOAD-1', 'ชำระเงิน');
  const en = await cache.svgFor('tx-1', 'en', 'PAYLOAD-1', 'Pay');
  const other = await cache.svgFor('tx-2', 'th', 'PAYLOAD-2', 'ชำระเงิน');
  assert.match(th, /aria-label="ชำระเงิน"/);
  assert.match(en, /aria-label="Pay"/);
  assert.notEqual(other, th);
  assert.equal(calls.length, 3);
  assert.equal(cache.size, 3);
});

test(
  'a changed payload or label (e.g. the merchant renamed) ' + 'renders again instead of serving the old image',
  async () => {
    const { calls, render } = countingRenderer();
    const cache = new QrSvgCache(10, render);
    await cache.svgFor('tx-1', 'en', 'PAYLOAD-OLD', 'Old Shop');
    const renamed = await cache.svgFor('tx-1', 'en', 'PAYLOAD-NEW', 'New Shop');
    assert.match(renamed, /aria-label="New Shop"/);
    assert.equal(renamed, await renderQrSvg('PAYLOAD-NEW', 'New Shop'));
    assert.equal(calls.length, 2);
    assert.equal(cache.size, 1, 'the replaced entry is not kept beside the new one');
  },
);

test('concurrent requests for the same page share one render', async () => {
  const { calls, render } = countingRenderer();
  const cache = new QrSvgCache(10, render);
  const svgs = await Promise.all(Array.from({ length: 5 }, () => cache.svgFor('tx-1', 'th', 'PAYLOAD-1', 'x')));
  assert.equal(new Set(svgs).size, 1);
  assert.equal(calls.length, 1);
});

test('the cache is bounded: the least recently used entry is dropped first', async () => {
  const { calls, render } = countingRenderer();
  const cache = new QrSvgCache(2, render);
  await cache.svgFor('tx-1', 'th', 'P1', 'x');
  await cache.svgFor('tx-2', 'th', 'P2', 'x');
  await cache.svgFor('tx-1', 'th', 'P1', 'x'); // tx-1 is now the most recently used
  await cache.svgFor('tx-3', 'th', 'P3', 'x'); // evicts tx-2
  assert.equal(cache.size, 2);
  assert.equal(calls.length, 3);
  await cache.svgFor('tx-1', 'th', 'P1', 'x');
  assert.equal(calls.length, 3, 'tx-1 survived');
  await cache.svgFor('tx-2', 'th', 'P2', 'x');
  assert.equal(calls.length, 4, 'tx-2 was evicted and renders again');
  assert.equal(cache.size, 2);
});

test('a failed render is not kept: the next request tries again', async () => {
  let fail = true;
  let renders = 0;
  const cache = new QrSvgCache(10, async (payload, label) => {
    renders += 1;
    if (fail) throw new Error('renderer down');
    return renderQrSvg(payload, label);
  });
  await assert.rejects(cache.svgFor('tx-1', 'th', 'P1', 'x'), /renderer down/);
  assert.equal(cache.size, 0);
  fail = false;
  assert.match(await cache.svgFor('tx-1', 'th', 'P1', 'x'), /^<svg/);
  assert.equal(renders, 2);
});

test('a non-positive or fractional bound is refused', () => {
  assert.throws(() => new QrSvgCache(0), RangeError);
  assert.throws(() => new QrSvgCache(1.5), RangeError);
});

test('deadline formatting reuses one formatter per language and stays right when languages alternate', () => {
  const at = Date.UTC(2026, 0, 1, 5, 7); // 12:07 in Bangkok (UTC+7)
  for (let i = 0; i < 3; i++) {
    assert.equal(formatDeadline(at, 'en'), '1 Jan 2026, 12:07 ICT');
    assert.equal(formatDeadline(at, 'th'), '1 ม.ค. 2569 12:07 น. (ICT)');
    assert.equal(formatDeadline(at + 60 * 60_000, 'en'), '1 Jan 2026, 13:07 ICT');
    // Past midnight in Bangkok while it is still the previous day in UTC.
    assert.equal(formatDeadline(Date.UTC(2026, 10, 23, 17, 30), 'en'), '24 Nov 2026, 00:30 ICT');
  }
});
