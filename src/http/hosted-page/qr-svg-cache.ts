// The hosted page's QR images (the inline SVG, and the PNG of "Save QR"), kept per transaction
// and language. Rendering the SVG is the
// page's single biggest cost (hundreds of µs of CPU), and a customer reloads the same page
// or switches language while paying, so each (transaction, language) is rendered once.
//
// An entry is only reused when the payload and the label it was rendered from are the same
// as now (a merchant may be renamed while a payment is open): a stale image is impossible,
// a changed input just renders again. The cache is a bounded LRU (Map insertion order), so
// its memory is capped whatever the traffic; a failed render is not kept.
import { renderQrSvg } from './qr-svg.ts';

type Entry<T> = { payload: string; label: string; image: Promise<T> };

/** Enough for every payment open at once on a busy single node; an SVG is ~2–4 KB, so under 10 MB. */
export const DEFAULT_QR_CACHE_ENTRIES = 2000;

/** One rendered image per (transaction, language); `render` makes it from the payload and label. */
export class QrImageCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #maxEntries: number;
  readonly #render: (payload: string, label: string) => Promise<T>;

  constructor(maxEntries: number, render: (payload: string, label: string) => Promise<T>) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
    this.#render = render;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The image for this transaction and language; `payload` and `label` are what it must show. */
  imageFor(transactionId: string, lang: string, payload: string, label: string): Promise<T> {
    const key = `${transactionId}\u0000${lang}`;
    const found = this.#entries.get(key);
    this.#entries.delete(key);
    if (found && found.payload === payload && found.label === label) {
      this.#entries.set(key, found); // most recently used goes to the end
      return found.image;
    }
    // Concurrent GETs of the same page share one render (the promise is what is cached).
    const entry: Entry<T> = { payload, label, image: this.#render(payload, label) };
    this.#entries.set(key, entry);
    entry.image.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return entry.image;
  }
}

/** The inline SVG of the payment page. */
export class QrSvgCache extends QrImageCache<string> {
  constructor(
    maxEntries: number = DEFAULT_QR_CACHE_ENTRIES,
    render: (payload: string, label: string) => Promise<string> = renderQrSvg,
  ) {
    super(maxEntries, render);
  }

  svgFor(transactionId: string, lang: string, payload: string, label: string): Promise<string> {
    return this.imageFor(transactionId, lang, payload, label);
  }
}
