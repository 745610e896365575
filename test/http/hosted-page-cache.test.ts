// The hosted page keeps rendered QR codes per (payload, label) in a bounded LRU (issue 14): a
// reload serves the same SVG, another transaction never gets a cached one, and the cache
// never grows past its limit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { QR_CACHE_LIMIT, qrCacheSize, renderQrSvg } from '../../src/http/hosted-page/qr-svg.ts';
import { formatDeadline } from '../../src/http/hosted-page/page-view.ts';

describe('hosted page caches', () => {
  test('the same payload and label give the same SVG; another payload or label gives its own', async () => {
    const a = await renderQrSvg('00020101021230550016A000000677010112', 'Pay ฿1,000.00');
    assert.equal(await renderQrSvg('00020101021230550016A000000677010112', 'Pay ฿1,000.00'), a);
    const otherPayload = await renderQrSvg('00020101021230550016A000000677010113', 'Pay ฿1,000.00');
    assert.notEqual(otherPayload, a);
    const otherLabel = await renderQrSvg('00020101021230550016A000000677010112', 'Pay ฿2,000.00');
    assert.match(otherLabel, /aria-label="Pay ฿2,000.00"/);
    assert.equal(otherLabel.replace(/aria-label="[^"]*"/, ''), a.replace(/aria-label="[^"]*"/, ''), 'same code, own label');
  });

  test('the cache is bounded: many transactions never grow it past its limit', async () => {
    for (let i = 0; i < QR_CACHE_LIMIT + 50; i++) await renderQrSvg(`payload-${i}`);
    assert.equal(qrCacheSize(), QR_CACHE_LIMIT);
    // The most recent survive, and are still right.
    assert.match(await renderQrSvg(`payload-${QR_CACHE_LIMIT + 49}`), /^<svg role="img"/);
  });

  test('the deadline formatter, built once per language, still formats each time as Bangkok time', () => {
    const at = Date.UTC(2026, 10, 22, 17, 5); // 00:05 the next day in Bangkok (UTC+7)
    assert.equal(formatDeadline(at, 'en'), '00:05');
    assert.equal(formatDeadline(at + 3_600_000, 'en'), '01:05');
    assert.match(formatDeadline(at, 'th'), /00:05/);
  });
});
