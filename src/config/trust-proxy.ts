// TRUST_PROXY: whose X-Forwarded-For is believed for the client address (docs/deployment.md, "Behind a load
// balancer").
import { isIP } from 'node:net';
import { splitList } from './list.ts';

/** TRUST_PROXY as Fastify's trustProxy option takes it. */
export type TrustProxy = boolean | string[];

const TRUST_PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: `false` (default: the socket's address is the client), `true` (believe any
 * X-Forwarded-For: only behind a proxy that overwrites it), or a comma-separated list of proxy
 * addresses / CIDRs (and `loopback`, `linklocal`, `uniquelocal`).
 *
 * A hop count is refused: Fastify 5 ignores one (a count cannot tell the proxy from a client that
 * connects directly and sends its own header), so `TRUST_PROXY=1` used to start and then silently
 * treat every client behind the proxy as the proxy's one address (one lockout for all).
 */
export function parseTrustProxy(raw: string, problems: string[]): TrustProxy {
  const value = raw.trim().toLowerCase();
  if (value === 'false' || value === '0' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    problems.push(
      `TRUST_PROXY="${raw}": a hop count cannot tell your proxy from a client that connects directly, ` +
        `so it is not supported; list the proxies' addresses or CIDRs instead (e.g. 10.0.0.0/8,loopback)`,
    );
    return false;
  }
  const entries = splitList(raw);
  if (entries.length > 0 && entries.length <= 64 && entries.every(isProxyEntry)) return entries;
  problems.push(
    `TRUST_PROXY="${raw}" must be false, true, ` +
      `or a comma-separated list of IP addresses / CIDRs (e.g. 10.0.0.0/8,loopback)`,
  );
  return false;
}

function isProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_KEYWORDS.has(entry.toLowerCase())) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
