// Comma-separated settings (OUTBOUND_ALLOWLIST, TRUST_PROXY).

/** The entries of a comma-separated value, each trimmed; empty ones are dropped, so `a, b,` is a and b. */
export function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
