// Every request a bank simulator's faithful surface received, with what it answered, for
// assertions and for a developer's eyes (GET /__sim/log). Secrets are redacted as they are
// recorded: the credentials of Authorization headers, and the JSON members each bank names
// (KBank: partnerSecret, access_token, consumerSecret; SCB: applicationSecret, accessToken).
import { bangkokIso } from './clock.ts';

export type LoggedRequest = {
  seq: number;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON or form body, else its text (truncated). */
  body: unknown;
  /** The body as sent (truncated), secrets redacted: shows number tokens such as `100.50` as written. */
  rawBody: string;
  /** stateful, scenario:<env-id>, or refused (auth, path) */
  handling: string;
  fault: string | null;
  /** What was answered; null while pending, and for a timeout (never answered). */
  answer: { status: number; body: unknown } | null;
};

const REDACTED = '<redacted>';
const MAX_ENTRIES = 10_000;
const MAX_TEXT = 2_000;

/** `value` with the members named in `secrets` (at any depth) replaced by "<redacted>". */
export function redactWith(secrets: ReadonlySet<string>, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => redactWith(secrets, item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, secrets.has(k) && v !== null ? REDACTED : redactWith(secrets, v)]),
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
export function loggableBodyWith(secrets: ReadonlySet<string>, raw: string, contentType: string | undefined): unknown {
  if (raw === '') return null;
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    return redactWith(secrets, Object.fromEntries(new URLSearchParams(raw)));
  }
  try {
    return redactWith(secrets, JSON.parse(raw));
  } catch {
    return raw.length > MAX_TEXT ? `${raw.slice(0, MAX_TEXT)}…` : raw;
  }
}

/** The body's text with the values of secret JSON members redacted. */
export function redactTextWith(secrets: ReadonlySet<string>, raw: string): string {
  const names = [...secrets].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const text = raw.replace(new RegExp(`("(?:${names})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g'), `$1"${REDACTED}"`);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

export class RequestLog {
  readonly #secrets: ReadonlySet<string>;
  readonly #entries: LoggedRequest[] = [];
  #seq = 0;

  /** `secrets`: the JSON members whose values are never logged. */
  constructor(secrets: Iterable<string>) {
    this.#secrets = new Set(secrets);
  }

  redact(value: unknown): unknown {
    return redactWith(this.#secrets, value);
  }

  loggableBody(raw: string, contentType: string | undefined): unknown {
    return loggableBodyWith(this.#secrets, raw, contentType);
  }

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
      body: this.loggableBody(request.raw, headerText(request.headers['content-type'])),
      rawBody: redactTextWith(this.#secrets, request.raw),
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
