// Renders a Thai QR payload as an inline <svg> for the hosted payment page.
// Inline SVG (rather than a PNG data URL) stays sharp at any zoom and needs no extra request.
import QRCode from 'qrcode';

const DEFAULT_LABEL = 'Thai QR payment code';

// The label may contain merchant-supplied text, so it must not be able to break out of
// the attribute.
function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Rendering a QR code costs ~0.7 ms of CPU, most of a page view; the same transaction's page is
 * reloaded and polled by its customer, so the result is kept per (payload, label) in a small
 * LRU. Bounded: at most QR_CACHE_LIMIT entries (~5 KB each), the oldest use evicted first.
 */
export const QR_CACHE_LIMIT = 512;
const cache = new Map<string, Promise<string>>();

export function renderQrSvg(payload: string, ariaLabel: string = DEFAULT_LABEL): Promise<string> {
  const key = `${payload}\u0000${ariaLabel}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // re-insert: Map order is the LRU order
    cache.set(key, hit);
    return hit;
  }
  const rendered = renderUncached(payload, ariaLabel);
  cache.set(key, rendered);
  rendered.catch(() => cache.delete(key));
  if (cache.size > QR_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return rendered;
}

export function qrCacheSize(): number {
  return cache.size;
}

async function renderUncached(payload: string, ariaLabel: string): Promise<string> {
  // 'M' (~15% recovery) survives a scuffed screen while keeping modules large enough
  // for phone cameras; margin 2 is a quiet zone the page's own padding completes.
  const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const start = svg.indexOf('<svg');
  if (start === -1) throw new Error('qrcode did not return an <svg> element');
  // Drop anything before <svg> (an XML prolog would be invalid inside HTML) and the
  // trailing newline, then make the image accessible to screen readers.
  return svg
    .slice(start)
    .trim()
    .replace('<svg', `<svg role="img" aria-label="${escapeAttribute(ariaLabel)}"`);
}
