// Rendered hosted pages, kept per (transaction, language) as pre-encoded UTF-8 with holes for
// the few values that must differ per response: the CSP nonce, the CSRF token (bound to the
// browser's cookie), the countdown and, on a result page, the return link's signature (its `ts`
// is the moment of the response, so a page rendered earlier never hands out a stale one).
// Rendering a page from its templates, escaping it and encoding its ~14 KB as UTF-8 cost most of
// a GET's CPU; copying the cached bytes and writing five short values into the holes costs a few µs.
//
// Safety of the cache:
//   - An entry is keyed by the transaction's id and the page language, and only used while the
//     fingerprint it was rendered for equals the one computed from the row just read (state,
//     refunds, result, merchant name): a page is never shown for another payment, nor after the
//     payment changed. Every GET still reads the row, so this holds across gateway instances.
//   - The holes are found by marker strings that contain 128 random bits drawn once per process.
//     Stored text (a merchant name, a description) cannot contain a marker, because nobody
//     outside this process knows it, and a marker never reaches a response: every one is filled.
//   - Per-response values are filled into a fresh buffer for each response: two responses never
//     share a nonce, and a CSRF token is only ever sent to the browser whose cookie it is bound to.
//   - The cache is an LRU bounded by bytes (Map insertion order).
import { randomBytes } from 'node:crypto';

/** The per-response values of a page. */
export type PageSlots = {
  nonce: string;
  csrf: string;
  remainingMs: string;
  remainingText: string;
  /** `&amp;ts=…&amp;signature=…` (HTML-escaped) on a result page's return link; '' elsewhere. */
  returnSignature: string;
};
type SlotName = keyof PageSlots;

const MARK = `gwslot${randomBytes(16).toString('hex')}`;
const SLOT_LETTER: Record<SlotName, string> = {
  nonce: 'n',
  csrf: 'c',
  remainingMs: 'm',
  remainingText: 't',
  returnSignature: 'r',
};
const SLOT_BY_LETTER: Record<string, SlotName> = {
  n: 'nonce',
  c: 'csrf',
  m: 'remainingMs',
  t: 'remainingText',
  r: 'returnSignature',
};
const MARK_PATTERN = new RegExp(`${MARK}([nctmr])`);

/** What to render in place of each per-response value when rendering a page for the cache. */
export const SLOT_MARKERS: PageSlots = {
  nonce: MARK + SLOT_LETTER.nonce,
  csrf: MARK + SLOT_LETTER.csrf,
  remainingMs: MARK + SLOT_LETTER.remainingMs,
  remainingText: MARK + SLOT_LETTER.remainingText,
  returnSignature: MARK + SLOT_LETTER.returnSignature,
};

/** Text rendered with SLOT_MARKERS, split at the markers once; filled per response. */
export class SlottedText {
  readonly #segments: Buffer[];
  readonly #slots: SlotName[];
  readonly #fixedBytes: number;

  constructor(rendered: string) {
    // split() with a capturing group alternates: text, slot letter, text, slot letter, …, text.
    const pieces = rendered.split(new RegExp(MARK_PATTERN.source, 'g'));
    this.#segments = [];
    this.#slots = [];
    for (let i = 0; i < pieces.length; i++) {
      if (i % 2 === 0) this.#segments.push(Buffer.from(pieces[i]!, 'utf8'));
      else this.#slots.push(SLOT_BY_LETTER[pieces[i]!]!);
    }
    this.#fixedBytes = this.#segments.reduce((sum, s) => sum + s.length, 0);
  }

  /** Bytes held by this text (for the cache's bound). */
  get bytes(): number {
    return this.#fixedBytes;
  }

  /** The slots in order of appearance (for tests). */
  get slots(): readonly SlotName[] {
    return this.#slots;
  }

  /** A new buffer: the cached bytes with this response's values in the holes. */
  fill(values: PageSlots): Buffer {
    let size = this.#fixedBytes;
    for (const slot of this.#slots) size += Buffer.byteLength(values[slot]);
    // Every byte is written below (segments and values cover the whole size exactly).
    const out = Buffer.allocUnsafe(size);
    let at = this.#segments[0]!.copy(out, 0);
    for (let i = 0; i < this.#slots.length; i++) {
      at += out.write(values[this.#slots[i]!], at, 'utf8');
      at += this.#segments[i + 1]!.copy(out, at);
    }
    return out;
  }
}

/**
 * One cached page: its body, its Content-Security-Policy split where the nonce goes (join the
 * parts with the response's nonce), and whether it carries the CSRF-protected forms.
 */
export type CachedPage = { body: SlottedText; cspParts: readonly string[]; hasCsrfForm: boolean };

/** A cacheable page from its text and CSP rendered with SLOT_MARKERS. */
export function cachedPage(renderedBody: string, renderedCsp: string): CachedPage {
  const body = new SlottedText(renderedBody);
  return { body, cspParts: renderedCsp.split(SLOT_MARKERS.nonce), hasCsrfForm: body.slots.includes('csrf') };
}

type Entry = { fingerprint: string; page: CachedPage; bytes: number };

/** ~14 KB per payment page: about 2,000 open payments' pages in one language. */
export const DEFAULT_PAGE_CACHE_BYTES = 32 * 1024 * 1024;

export class RenderedPageCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number = DEFAULT_PAGE_CACHE_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError('maxBytes must be a positive integer');
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The page of this transaction and language, if it was rendered for exactly this fingerprint. */
  get(transactionId: string, lang: string, fingerprint: string): CachedPage | undefined {
    const key = `${transactionId}\u0000${lang}`;
    const found = this.#entries.get(key);
    if (!found) return undefined;
    this.#entries.delete(key);
    if (found.fingerprint !== fingerprint) {
      this.#bytes -= found.bytes; // the payment changed: the old page is dead
      return undefined;
    }
    this.#entries.set(key, found); // most recently used goes to the end
    return found.page;
  }

  set(transactionId: string, lang: string, fingerprint: string, page: CachedPage): void {
    const key = `${transactionId}\u0000${lang}`;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    const bytes =
      page.body.bytes + page.cspParts.reduce((sum, p) => sum + p.length, 0) + key.length + fingerprint.length;
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { fingerprint, page, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }
}
