// What guards a bank's unsigned callback route (docs/architecture.md "Connectors"): KBank's notify
// route and SCB's confirmation route sign nothing, so each is reached only through an unguessable
// last path segment, compared here in constant time, and optionally only from listed addresses.
import { timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Constant time for every candidate of the right length; a wrong length says only that it is wrong. */
export function samePathToken(candidate: string, expected: Buffer): boolean {
  const given = Buffer.from(candidate, 'utf8');
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(given, expected);
}

/**
 * Whether a client address is in the allow list (addresses or CIDRs, validated by config/); an
 * empty list lets everyone in. ::ffff:a.b.c.d is how a dual-stack socket spells an IPv4 client.
 */
export function addressAllowList(entries: readonly string[]): (clientAddress: string | undefined) => boolean {
  const ranges = entries.map(toRange);
  return (clientAddress) => {
    if (ranges.length === 0) return true;
    if (clientAddress === undefined || !ipaddr.isValid(clientAddress)) return false;
    const address = ipaddr.process(clientAddress);
    return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  };
}

function toRange(entry: string): Range {
  if (entry.includes('/')) return ipaddr.parseCIDR(entry) as Range;
  const address = ipaddr.parse(entry);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}
