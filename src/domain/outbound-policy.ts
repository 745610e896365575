// Where the gateway may send merchant notifications (serverUrl).
//
// Pure policy: no DNS, no sockets. Two entry points because one check is not
// enough:
//   - checkUrl: static checks when a merchant hands us a URL (scheme,
//     credentials, literal IP hosts, localhost names). Cheap early feedback.
//   - checkResolvedAddress: the check that actually protects us. The delivery
//     layer calls it for every address DNS returns, right before connecting,
//     so a name that resolved to a public address at initiation time and to
//     127.0.0.1 at delivery time (DNS rebinding) is still refused.
import ipaddr from 'ipaddr.js';

export type AddressClass =
  'public' | 'loopback' | 'private' | 'linkLocal' | 'cgnat' | 'multicast' | 'metadata' | 'unspecified' | 'reserved';

export type OutboundPolicy = {
  mode: 'sandbox' | 'live';
  /** Live mode only: permit plain http:// targets. Sandbox always permits http. */
  allowHttp: boolean;
  /**
   * Hostnames (`hooks.example.com`, `*.example.com`), IPs or CIDRs.
   * A plain entry allows a target live mode would refuse (e.g. a merchant on
   * a private network). An entry prefixed with `!` forbids a target even in
   * sandbox. Deny always beats allow.
   */
  allowList: readonly string[];
  /** Same syntax as allowList without the `!`; every entry forbids. */
  denyList?: readonly string[];
  /**
   * Sandbox for merchants the operator does not trust (OUTBOUND_PUBLIC_ONLY): public addresses
   * only, as in live mode (allowList entries still apply), a refusal that does not say what a
   * name resolved to, and no answer or socket error of a non-public target recorded. Live mode
   * is public-only whatever this says.
   */
  publicOnly?: boolean;
};

export type PolicyResult = { ok: true } | { ok: false; reason: string };

type IP = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [IP, number];

// Live mode connects to the public internet only.
const LIVE_ALLOWED: ReadonlySet<AddressClass> = new Set(['public']);
// Sandbox additionally reaches the merchant's own machine and LAN, so merchants can test against
// localhost (docs/notifications.md "Where notifications may go"). Link-local, CGNAT, metadata and
// the rest still need an explicit allow-list entry: cloud metadata endpoints hand out credentials,
// so a sandbox tenant must not reach them.
const SANDBOX_ALLOWED: ReadonlySet<AddressClass> = new Set(['public', 'loopback', 'private']);

function permittedClasses(policy: OutboundPolicy): ReadonlySet<AddressClass> {
  // Fail closed: anything that is not exactly 'sandbox' (say, a typo in
  // config) gets the live rules.
  return policy.mode === 'sandbox' && policy.publicOnly !== true ? SANDBOX_ALLOWED : LIVE_ALLOWED;
}

/** How a refusal names the mode: a public-only sandbox says so. */
function modeName(policy: OutboundPolicy): string {
  return policy.mode === 'sandbox' && policy.publicOnly === true ? 'public-only sandbox mode' : `${policy.mode} mode`;
}

/**
 * Whether what an attempt met at `address` (the status line aside: its answer's excerpt, a socket
 * error's detail) may be recorded for the merchant to read. In a public-only sandbox only a
 * public address's may: a non-public one is reached only through an OUTBOUND_ALLOWLIST entry,
 * and its answers would tell merchants about the operator's network. An unknown address counts
 * as non-public.
 */
export function mayRecordAnswerOf(address: string | undefined, policy: OutboundPolicy): boolean {
  if (policy.publicOnly !== true) return true;
  const ip = address === undefined ? null : parseIp(address);
  return ip !== null && classifyIp(canonical(ip)) === 'public';
}

function cidr(text: string): Range {
  return ipaddr.parseCIDR(text) as Range;
}

// First match wins, so the specific metadata hosts sit before the ranges
// that contain them.
const IPV4_TABLE: ReadonlyArray<[AddressClass, Range]> = [
  ['metadata', cidr('169.254.169.254/32')], // AWS, GCP, Azure, OpenStack IMDS
  ['metadata', cidr('169.254.170.2/32')], // AWS ECS task credentials
  ['metadata', cidr('100.100.100.200/32')], // Alibaba Cloud
  ['metadata', cidr('168.63.129.16/32')], // Azure WireServer (public-looking, host-internal)
  ['unspecified', cidr('0.0.0.0/8')], // Linux connects 0.0.0.0 to the local host
  ['loopback', cidr('127.0.0.0/8')],
  ['private', cidr('10.0.0.0/8')],
  ['private', cidr('172.16.0.0/12')],
  ['private', cidr('192.168.0.0/16')],
  ['linkLocal', cidr('169.254.0.0/16')],
  ['cgnat', cidr('100.64.0.0/10')],
  ['multicast', cidr('224.0.0.0/4')],
  ['reserved', cidr('240.0.0.0/4')], // includes broadcast 255.255.255.255
  ['reserved', cidr('192.0.0.0/24')], // IETF protocol assignments
  ['reserved', cidr('192.0.2.0/24')], // documentation TEST-NET-1
  ['reserved', cidr('198.51.100.0/24')], // documentation TEST-NET-2
  ['reserved', cidr('203.0.113.0/24')], // documentation TEST-NET-3
  ['reserved', cidr('198.18.0.0/15')], // benchmarking
  ['reserved', cidr('192.88.99.0/24')], // deprecated 6to4 relay anycast
];

const IPV6_TABLE: ReadonlyArray<[AddressClass, Range]> = [
  ['metadata', cidr('fd00:ec2::254/128')], // AWS IMDS over IPv6
  ['unspecified', cidr('::/128')],
  ['loopback', cidr('::1/128')],
  ['reserved', cidr('::/96')], // deprecated IPv4-compatible
  ['reserved', cidr('::ffff:0:0:0/96')], // IPv4-translated (RFC 6145)
  ['linkLocal', cidr('fe80::/10')],
  ['private', cidr('fec0::/10')], // deprecated site-local
  ['private', cidr('fc00::/7')], // unique local
  ['multicast', cidr('ff00::/8')],
  ['reserved', cidr('2001:db8::/32')], // documentation
  ['reserved', cidr('3fff::/20')], // documentation (RFC 9637)
  ['reserved', cidr('100::/64')], // discard
  ['reserved', cidr('2001::/23')], // IETF assignments incl. Teredo
  ['reserved', cidr('5f00::/16')], // segment routing
  ['public', cidr('2000::/3')], // the only block allocated for global unicast
];

const NAT64 = cidr('64:ff9b::/96');
// Local-use NAT64 (RFC 8215): the operator picks the prefix length inside it, and with it where the
// IPv4 sits (RFC 6052). Only the /96 layout (bits 48–95 zero, the IPv4 in the last 32 bits, as
// under 64:ff9b::/96) says which IPv4 it reaches; any other layout is judged unknown: reserved.
const NAT64_LOCAL = cidr('64:ff9b:1::/48');
const SIX_TO_FOUR = cidr('2002::/16');

/**
 * Parses an address the way the OS hands it to us: dotted-quad IPv4 or any
 * IPv6 form, optionally bracketed or with a zone id. Deliberately refuses
 * exotic IPv4 spellings (`0x7f.1`, `2130706433`) so an allow-list entry or a
 * resolver answer can never mean something other than what it looks like.
 */
export function parseIp(text: string): IP | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // ipaddr.js rejects a host name by throwing and catching (~10 µs); most hosts are names.
  if (/^[\d.]+$/.test(bare)) return ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : null;
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

function lookupTable(ip: IP, table: ReadonlyArray<[AddressClass, Range]>): AddressClass | null {
  for (const [cls, range] of table) {
    if (range[0].kind() === ip.kind() && ip.match(range)) return cls;
  }
  return null;
}

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classifyIp(ip: IP): AddressClass {
  if (ip.kind() === 'ipv4') return lookupTable(ip, IPV4_TABLE) ?? 'public';
  const v6 = ip as ipaddr.IPv6;
  // ::ffff:a.b.c.d is how dual-stack sockets spell IPv4; judge the IPv4.
  if (v6.isIPv4MappedAddress()) return classifyIp(v6.toIPv4Address());
  // NAT64 and 6to4 carry an IPv4 inside; a gateway on the path would deliver
  // to that IPv4, so a private one inside must not pass as public IPv6.
  if (v6.match(NAT64)) return classifyIp(v4FromParts(v6.parts[6] ?? 0, v6.parts[7] ?? 0));
  if (v6.match(NAT64_LOCAL)) {
    if (v6.parts[3] !== 0 || v6.parts[4] !== 0 || v6.parts[5] !== 0) return 'reserved';
    return classifyIp(v4FromParts(v6.parts[6] ?? 0, v6.parts[7] ?? 0));
  }
  if (v6.match(SIX_TO_FOUR)) {
    return classifyIp(v4FromParts(v6.parts[1] ?? 0, v6.parts[2] ?? 0));
  }
  // Anything outside the known tables and outside 2000::/3 is unallocated.
  return lookupTable(v6, IPV6_TABLE) ?? 'reserved';
}

/** Classifies an IPv4/IPv6 address string. Throws TypeError if it is not one. */
export function classifyAddress(ip: string): AddressClass {
  const parsed = parseIp(ip);
  if (!parsed) throw new TypeError(`not an IP address: ${ip}`);
  return classifyIp(parsed);
}

// ---------------------------------------------------------------------------
// Allow/deny entries

type Entry =
  | { kind: 'range'; range: Range }
  | { kind: 'host'; name: string }
  // from `*.example.com`, stored as `.example.com`
  | { kind: 'suffix'; suffix: string };

function normalizeHost(host: string): string {
  // URL already lowercases and punycodes; a trailing dot is the same name.
  return host.toLowerCase().replace(/\.$/, '');
}

function parseEntry(raw: string): Entry | null {
  const text = raw.trim();
  if (text === '') return null;
  if (text.includes('/')) {
    const parts = text.split('/');
    if (parts.length !== 2) return null;
    const [addr = '', bits = ''] = parts;
    const ip = parseIp(addr);
    const max = ip?.kind() === 'ipv4' ? 32 : 128;
    if (!ip || !/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
    return { kind: 'range', range: [ip, Number(bits)] };
  }
  const ip = parseIp(text);
  if (ip) return { kind: 'range', range: [ip, ip.kind() === 'ipv4' ? 32 : 128] };
  const wildcard = text.startsWith('*.');
  const name = normalizeHost(wildcard ? text.slice(2) : text);
  // `*.` alone would otherwise become a suffix that matches every host.
  if (name === '' || /[\s/@:?#*]/.test(name)) return null;
  return wildcard ? { kind: 'suffix', suffix: `.${name}` } : { kind: 'host', name };
}

type Lists = { allow: Entry[]; deny: Entry[] };

/**
 * Parsed lists per policy object: a policy is built once from the configuration and checked on every initiation
 * and delivery.
 */
const parsedLists = new WeakMap<
  OutboundPolicy,
  { allowList: readonly string[]; denyList: readonly string[] | undefined; lists: Lists }
>();

function splitLists(policy: OutboundPolicy): Lists {
  const cached = parsedLists.get(policy);
  // The arrays are compared too, so a caller that swaps a list on the same object is never served stale entries.
  if (cached && cached.allowList === policy.allowList && cached.denyList === policy.denyList) return cached.lists;
  const lists = parseLists(policy);
  parsedLists.set(policy, { allowList: policy.allowList, denyList: policy.denyList, lists });
  return lists;
}

function parseLists(policy: OutboundPolicy): Lists {
  const allow: Entry[] = [];
  const deny: Entry[] = [];
  for (const raw of policy.allowList) {
    const negated = raw.trim().startsWith('!');
    const entry = parseEntry(negated ? raw.trim().slice(1) : raw);
    if (entry) (negated ? deny : allow).push(entry);
  }
  for (const raw of policy.denyList ?? []) {
    const entry = parseEntry(raw);
    if (entry) deny.push(entry);
  }
  return { allow, deny };
}

/** Config-time check: lists the entries that would otherwise be silently ignored. */
export function validatePolicy(policy: OutboundPolicy): string[] {
  const problems: string[] = [];
  if (policy.mode !== 'sandbox' && policy.mode !== 'live') problems.push(`unknown mode: ${String(policy.mode)}`);
  const check = (raw: string, where: string) => {
    const text = raw.trim().replace(/^!/, '');
    if (!parseEntry(text)) problems.push(`${where}: unusable entry ${JSON.stringify(raw)}`);
  };
  for (const raw of policy.allowList) check(raw, 'allowList');
  for (const raw of policy.denyList ?? []) {
    if (raw.trim().startsWith('!')) problems.push(`denyList: "!" has no meaning here: ${JSON.stringify(raw)}`);
    else check(raw, 'denyList');
  }
  return problems;
}

function ipMatches(ip: IP, entries: Entry[]): boolean {
  return entries.some((e) => e.kind === 'range' && e.range[0].kind() === ip.kind() && ip.match(e.range));
}

function hostMatches(host: string | null, entries: Entry[]): boolean {
  if (host === null) return false;
  return entries.some(
    (e) => (e.kind === 'host' && e.name === host) || (e.kind === 'suffix' && host.endsWith(e.suffix)),
  );
}

// Compare IPv4-mapped IPv6 against IPv4 entries, as the socket would.
function canonical(ip: IP): IP {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

function decideAddress(host: string | null, rawIp: IP, policy: OutboundPolicy): PolicyResult {
  const ip = canonical(rawIp);
  const { allow, deny } = splitLists(policy);
  const shown = ip.toString();
  if (hostMatches(host, deny)) return { ok: false, reason: `host ${host} is denied by policy` };
  if (ipMatches(ip, deny)) return { ok: false, reason: `address ${shown} is denied by policy` };
  const cls = classifyIp(ip);
  if (ipMatches(ip, allow)) return { ok: true };
  // A hostname entry trusts whatever that name resolves to, except metadata:
  // unlocking credentials endpoints takes an explicit IP/CIDR entry, not DNS.
  if (hostMatches(host, allow) && cls !== 'metadata') return { ok: true };
  if (permittedClasses(policy).has(cls)) return { ok: true };
  // A public-only sandbox does not tell a merchant what a name resolves to inside the network.
  if (policy.publicOnly === true && host !== null) {
    return { ok: false, reason: `${host} is not a public address, refused in ${modeName(policy)}` };
  }
  return { ok: false, reason: `address ${shown} is ${cls}, refused in ${modeName(policy)}` };
}

function isLocalhostName(host: string): boolean {
  // RFC 6761: localhost and everything under it resolves to loopback.
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Static checks on a merchant-supplied URL, at initiation time. */
export function checkUrl(url: string, policy: OutboundPolicy): PolicyResult {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: `scheme ${parsed.protocol} is not allowed` };
  }
  // Credentials in the URL would end up in logs and dashboards.
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  if (parsed.protocol === 'http:' && policy.mode !== 'sandbox' && !policy.allowHttp) {
    return { ok: false, reason: 'live mode requires https' };
  }
  const literal = parseIp(parsed.hostname);
  if (literal) return decideAddress(null, literal, policy);

  const host = normalizeHost(parsed.hostname);
  const { allow, deny } = splitLists(policy);
  if (hostMatches(host, deny)) return { ok: false, reason: `host ${host} is denied by policy` };
  if (hostMatches(host, allow)) return { ok: true };
  if (isLocalhostName(host) && !permittedClasses(policy).has('loopback')) {
    return { ok: false, reason: `${host} is loopback, refused in ${modeName(policy)}` };
  }
  // Other names are judged on what they resolve to, at connect time.
  return { ok: true };
}

/** Connect-time check of one resolved address of `host`. */
export function checkResolvedAddress(host: string, ip: string, policy: OutboundPolicy): PolicyResult {
  const parsed = parseIp(ip);
  if (!parsed) return { ok: false, reason: `resolver returned a non-IP answer: ${ip}` };
  const name = parseIp(host) ? null : normalizeHost(host);
  return decideAddress(name, parsed, policy);
}
