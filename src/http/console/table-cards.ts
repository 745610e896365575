// Tables as cards on a phone (docs/console.md, "On a phone"): one pass over a page's markup, after
// the pages have rendered it, so no page lays out its rows twice. Every table with a <thead> gets
// the class `cards`; each body cell gets `data-label` (its column's heading, which the phone
// stylesheet prints before the value) and the class `key` when its column's <th> has it (the phone
// stylesheet puts those cells first). Inside a cell, a ledger account name
// (`merchant_payout:siam-coffee:THB`, domain/ledger.ts accountId) gets a <wbr> after each `:`, so it
// wraps at its segments rather than anywhere (a `:` before a letter is no break opportunity).
//
// The markup is the console's own, built by the `html` tag: text is escaped (no `<`, `>` or `"`
// outside tags and attribute delimiters), tables are not nested and every cell is closed, so
// plain patterns over the tags are exact here. They would not be for arbitrary HTML.

// Runs over every page the console renders: a 50-row page has ~350 cells, so each cell's work is
// plain string checks first and a pattern only when the cell has what the pattern is for.

/** A column: its label as the attribute to add (` data-label="…"`, or '' for no label) and whether it is a key. */
type Column = { labelAttr: string; key: boolean };

const TABLE = /<table\b([^>]*)>([\s\S]*?)<\/table>/g;
const THEAD = /<thead\b[^>]*>([\s\S]*?)<\/thead>/;
const TH = /<th\b([^>]*)>([\s\S]*?)<\/th>/g;
const ROW = /(<tr\b[^>]*>)([\s\S]*?)<\/tr>/g;
const TD = /<td\b([^>]*)>([\s\S]*?)<\/td>/g;
const ACCOUNT_NAME = /\b([a-z_]+):([A-Za-z0-9_-]+):([A-Z]{3})\b/g;
const HAS_ACCOUNT_NAME = new RegExp(ACCOUNT_NAME.source);

const classesOf = (attrs: string): string[] => /\bclass="([^"]*)"/.exec(attrs)?.[1]?.split(/\s+/) ?? [];
const spanOf = (attrs: string): number =>
  attrs.includes('colspan') ? Number(/\bcolspan="(\d+)"/.exec(attrs)?.[1] ?? '1') : 1;

function columnsOf(head: string): Column[] {
  const columns: Column[] = [];
  for (const [, attrs = '', inner = ''] of head.matchAll(TH)) {
    const label = inner
      .replace(/<[^>]*>/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/"/g, '&quot;');
    const column = { labelAttr: label === '' ? '' : ` data-label="${label}"`, key: classesOf(attrs).includes('key') };
    for (let i = 0; i < spanOf(attrs); i++) columns.push(column);
  }
  return columns;
}

/** A cell's start tag with its label and key class added. */
function labelled(attrs: string, column: Column | undefined): string {
  if (!column || spanOf(attrs) > 1) return `<td${attrs}>`;
  let out = attrs;
  if (column.key)
    out = out.includes('class="') ? out.replace(/\bclass="([^"]*)"/, 'class="$1 key"') : `${out} class="key"`;
  return `<td${out}${column.labelAttr}>`;
}

/** Break opportunities after the colons of the account names in a cell's text (never in a tag's attributes). */
const withSegmentBreaks = (inner: string): string =>
  !inner.includes(':') || !HAS_ACCOUNT_NAME.test(inner)
    ? inner
    : inner.replace(
        /(^|>)([^<]+)/g,
        (_, open: string, text: string) => open + text.replace(ACCOUNT_NAME, '$1:<wbr>$2:<wbr>$3'),
      );

function cardTable(attrs: string, inside: string): string {
  const head = THEAD.exec(inside);
  if (!head) return `<table${attrs}>${inside}</table>`;
  const columns = columnsOf(head[1] ?? '');
  const bodyStart = head.index + head[0].length;
  const body = inside.slice(bodyStart).replace(ROW, (_, open: string, cells: string) => {
    let at = 0;
    const row = cells.replace(TD, (__, cellAttrs: string, inner: string) => {
      const column = columns[at];
      at += spanOf(cellAttrs);
      return `${labelled(cellAttrs, column)}${withSegmentBreaks(inner)}</td>`;
    });
    return `${open}${row}</tr>`;
  });
  const tableAttrs = /\bclass="/.test(attrs)
    ? attrs.replace(/\bclass="([^"]*)"/, 'class="$1 cards"')
    : `${attrs} class="cards"`;
  return `<table${tableAttrs}>${inside.slice(0, bodyStart)}${body}</table>`;
}

/** The page's markup with every headed table ready to become cards on a phone. */
export function tablesAsCards(markup: string): string {
  return markup.replace(TABLE, (_, attrs: string, inside: string) => cardTable(attrs, inside));
}
