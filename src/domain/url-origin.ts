// The origin (scheme://host[:port]) a notification goes to: the unit of per-endpoint fairness
// and of the per-host concurrency cap. Stored with every outbox event so that claims can walk
// origins on an index instead of scanning every due event (a dead endpoint's backlog would
// otherwise sit in front of everyone else's).
export function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    if (origin !== 'null') return origin;
  } catch {
    // fall through: an unparsable URL is its own group (it fails the outbound policy anyway)
  }
  return (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(url)?.[0] ?? url).toLowerCase();
}
