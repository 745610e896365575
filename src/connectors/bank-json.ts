// Reading a bank's JSON answer without losing a number (docs/connectors/kbank.md, scb.md): JSON.parse
// turns 100.50 into the float 100.5, and an amount must be read from the digits the bank wrote.
// Both banks' wire.ts read their answers through this; what each member means is theirs.

/** A JSON number as the bank wrote it: its exact text, never a float. */
export class JsonNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Json = Record<string, unknown>;

/**
 * The bank's JSON object with every number kept as its source text (JsonNumber); null when the
 * text is not a JSON object.
 */
export function parseBankJson(text: string): Json | null {
  let value: unknown;
  try {
    value = JSON.parse(text, (_key, parsed: unknown, context?: { source?: string }) =>
      typeof parsed === 'number' ? new JsonNumber(context?.source ?? String(parsed)) : parsed,
    );
  } catch {
    return null;
  }
  return isJsonObject(value) ? value : null;
}

/** A JSON object, not an array, null or a number. */
export function isJsonObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumber);
}
