// What may stand as the host of a merchant's URL (returnUrl, returnUrl_on_failure, serverUrl;
// docs/api.md "Initiation"): a DNS host name or an IP literal, nothing else. The WHATWG URL parser
// accepts far more in a host (`,`, `*`, `;`, `'`, `!` …), and the hosted page puts the return
// URLs' origins into its Content-Security-Policy (`form-action`), where such characters would
// split or widen the policy.

// One label: letters, digits and hyphens, 1–63 characters, no hyphen at either end. The URL
// parser has already lower-cased the name and turned an internationalised one into xn-- labels.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_NAME = 253;

/**
 * True when `hostname`, as `new URL(…).hostname` gives it, is a DNS name or an IP literal. The
 * parser has already turned an IPv4 in any spelling into its dotted quad and kept IPv6 in brackets.
 */
export function isUrlHost(hostname: string): boolean {
  if (hostname.startsWith('[')) return hostname.endsWith(']') && hostname.includes(':');
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name === '' || name.length > MAX_NAME) return false;
  return name.split('.').every((label) => LABEL.test(label));
}
