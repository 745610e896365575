// Enforces the outbound policy on the address a socket actually connects to.
//
// Checking a URL when the merchant registers it is not enough: DNS can answer
// with a public address then and 127.0.0.1 at delivery time (DNS rebinding).
// So the delivery client passes `lookup: createGuardedLookup(policy)` to
// http(s).request; Node then connects only to addresses this function hands
// back, and each one has passed checkResolvedAddress.
//
// SUBTLETY: Node never calls `lookup` when the host is already an IP literal
// (`http://127.0.0.1/`, `http://[::1]/`) — net.connect skips resolution for
// those. A guarded lookup alone would wave them through. Use
// guardedRequestOptions(), which runs the static URL check (covering IP
// literals) and installs the lookup, or call assertLiteralHostAllowed()
// yourself when building options by hand.
//
// Other ways around the lookup, which the delivery client must avoid:
// global fetch/undici (ignores `lookup`), an HTTP proxy agent (the socket goes
// to the proxy), and following redirects (a new, unchecked URL).
import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import type { RequestOptions } from 'node:http';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { checkResolvedAddress, checkUrl, parseIp } from '../domain/outbound-policy.ts';
import type { OutboundPolicy } from '../domain/outbound-policy.ts';

export class OutboundPolicyError extends Error {
  readonly code = 'EOUTBOUNDPOLICY';
  override name = 'OutboundPolicyError';
}

/** Shape of dns.lookup with `all: true`; injectable so tests can fake DNS. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

// RFC 2606/6761 names that can never resolve publicly (`merchant.example`, `shop.test`, …).
// Answering them here keeps sample and test URLs from sending queries to the network's DNS.
const NEVER_RESOLVES = /(?:^|\.)(?:test|example|invalid)\.?$/i;

const systemResolver: Resolver = (hostname, options, callback) => {
  if (NEVER_RESOLVES.test(hostname)) {
    const notFound: NodeJS.ErrnoException = new Error(
      `getaddrinfo ENOTFOUND ${hostname} (a reserved name that never resolves)`,
    );
    notFound.code = 'ENOTFOUND';
    return callback(notFound, []);
  }
  dns.lookup(hostname, options, callback);
};

export function createGuardedLookup(policy: OutboundPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    // Always ask for every address: filtering needs the full set, and the
    // caller (happy-eyeballs or not) gets the subset it asked for below.
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      if (addresses.length === 0) {
        const notFound: NodeJS.ErrnoException = new Error(`no addresses for ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, options.all ? [] : '');
      }
      const reasons: string[] = [];
      const allowed = addresses.filter((a) => {
        const verdict = checkResolvedAddress(hostname, a.address, policy);
        if (!verdict.ok) reasons.push(verdict.reason);
        return verdict.ok;
      });
      const first = allowed[0];
      if (!first) {
        return callback(new OutboundPolicyError(`${hostname}: ${reasons.join('; ')}`), options.all ? [] : '');
      }
      if (options.all) return callback(null, allowed);
      return callback(null, first.address, first.family);
    });
  };
}

/** Throws OutboundPolicyError if the URL's host is an IP literal the policy refuses. */
export function assertLiteralHostAllowed(url: string, policy: OutboundPolicy): void {
  const { hostname } = new URL(url);
  if (!parseIp(hostname)) return; // names are checked by the guarded lookup
  const verdict = checkResolvedAddress(hostname, hostname, policy);
  if (!verdict.ok) throw new OutboundPolicyError(verdict.reason);
}

/**
 * Request options for delivering to `url` under `policy`: the full static
 * check (scheme, credentials, IP literals, localhost names) now, and the
 * resolved-address check at connect time via `lookup`.
 * Throws OutboundPolicyError when the URL is refused outright.
 */
export function guardedRequestOptions(url: string, policy: OutboundPolicy, resolve?: Resolver): RequestOptions {
  const verdict = checkUrl(url, policy);
  if (!verdict.ok) throw new OutboundPolicyError(verdict.reason);
  assertLiteralHostAllowed(url, policy); // already covered by checkUrl; kept as the explicit literal-IP guard
  return { ...urlToHttpOptions(new URL(url)), lookup: createGuardedLookup(policy, resolve) };
}
