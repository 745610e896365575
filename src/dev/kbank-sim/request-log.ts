// Every request the faithful surface received, with what it answered, for assertions and for a
// developer's eyes (GET /__sim/log). Secrets are redacted as they are recorded: partnerSecret in
// bodies, the credentials of Authorization headers, access tokens in answers.
import { bangkokIso } from './clock.ts';

export type LoggedRequest = {
  seq: number;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON or form body, else its text (truncated). */
  body: unknown;
  /** The body as sent (truncated), partnerSecret redacted: shows number tokens such as `100.50` as written. */
  rawBody: string;
  /** stateful, scenario:<env-id>, or refused (auth, path) */
  handling: string;
  fault: string | null;
  /** What was answered; null while pending, and for a timeout (never answered). */
  answer: { status: number; body: unknown } | null;
};

const REDACTED = '<redacted>';
const SECRET_KEYS = new Set(['partnerSecret', 'access_token', 'consumerSecret']);
const MAX_ENTRIES = 10_000;
const MAX_TEXT = 2_000;

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.has(k) && v !== null ? REDACTED : redact(v)]),
  );
}

function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = name === 'authorization' ? text.replace(/^(\S+)\s+.*$/, `$1 ${REDACTED}`) : text;
  }
  return out;
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** A body for the log: JSON, a form, or text. */
export function loggableBody(raw: string, contentType: string | undefined): unknown {
  if (raw === '') return null;
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    return redact(Object.fromEntries(new URLSearchParams(raw)));
  }
  try {
    return redact(JSON.parse(raw));
  } catch {
    return raw.length > MAX_TEXT ? `${raw.slice(0, MAX_TEXT)}…` : raw;
  }
}

/** The body's text with the values of secret JSON members redacted. */
export function redactText(raw: string): string {
  const text = raw.replace(
    /("(?:partnerSecret|access_token|consumerSecret)"\s*:\s*)"(?:[^"\\]|\\.)*"/g,
    `$1"${REDACTED}"`,
  );
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  #seq = 0;

  start(
    at: number,
    request: { method: string; path: string; headers: Record<string, string | string[] | undefined>; raw: string },
  ): LoggedRequest {
    const entry: LoggedRequest = {
      seq: ++this.#seq,
      at: bangkokIso(at),
      method: request.method,
      path: request.path,
      headers: redactHeaders(request.headers),
      body: loggableBody(request.raw, headerText(request.headers['content-type'])),
      rawBody: redactText(request.raw),
      handling: 'refused',
      fault: null,
      answer: null,
    };
    this.#entries.push(entry);
    if (this.#entries.length > MAX_ENTRIES) this.#entries.shift();
    return entry;
  }

  list(): LoggedRequest[] {
    return structuredClone(this.#entries);
  }
}
