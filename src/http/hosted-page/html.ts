// A tiny HTML template tag: every interpolated value is escaped unless it is already
// `SafeHtml` (built by this tag or explicitly marked with `raw`). Merchant-supplied text
// (name, trackid, description) therefore cannot inject markup into the payment page.
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/;

export function escapeHtml(text: string): string {
  // Most values (ids, amounts, times) have nothing to escape: a test is cheaper than a replace.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ENTITIES[c]!) : text;
}

/** Marks trusted markup (our own SVG renderer's output, constant strings). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

type Value = string | number | SafeHtml | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: Value) => render(v)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
