// CSV for spreadsheets (RFC 4180): CRLF rows, a field quoted when it holds a comma, quote or
// line break (quotes doubled). A text field that a spreadsheet would run as a formula (starting
// with = + - @, tab or carriage return) gets a leading apostrophe (OWASP "CSV injection").
// Plain numbers we print ourselves (amounts like -12.5000) stay numbers.
const NUMBER = /^-?\d+(\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | bigint | null): string {
  let text = value === null ? '' : String(value);
  if (!NUMBER.test(text) && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: ReadonlyArray<string | number | bigint | null>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
