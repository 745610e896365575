// The bank's JSON. Amounts that KBank sends as JSON numbers (a create request's and a callback's
// `txnAmount`, `settlementAmount`) are written as number tokens with exactly two decimals
// (`100.50`, not `100.5`), which JSON.stringify cannot do: a JsonDecimal is emitted verbatim.
export class JsonDecimal {
  readonly text: string;
  constructor(text: string) {
    if (!/^-?\d+(?:\.\d+)?$/.test(text)) throw new Error(`not a decimal number token: ${text}`);
    this.text = text;
  }
  toJSON(): number {
    return Number(this.text); // for a JSON.stringify that did not go through toWireJson
  }
}

/** JSON.stringify with JsonDecimal written as its text; properties whose value is undefined are left out. */
export function toWireJson(value: unknown): string {
  if (value instanceof JsonDecimal) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => toWireJson(item ?? null)).join(',')}]`;
  const members: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) members.push(`${JSON.stringify(key)}:${toWireJson(item)}`);
  }
  return `{${members.join(',')}}`;
}

/** The body as a JSON object, or null (not JSON, or JSON but not an object). */
export function parseJsonObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
