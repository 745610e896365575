import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkResolvedAddress,
  checkUrl,
  classifyAddress,
  mayRecordAnswerOf,
  validatePolicy,
} from '../../src/domain/outbound-policy.ts';
import type { AddressClass, OutboundPolicy } from '../../src/domain/outbound-policy.ts';

const live: OutboundPolicy = { mode: 'live', allowHttp: false, allowList: [] };
const sandbox: OutboundPolicy = { mode: 'sandbox', allowHttp: false, allowList: [] };

const CLASSES: Array<[string, AddressClass]> = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'linkLocal'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.1', 'public'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'], // Teredo
  ['::7f00:1', 'reserved'], // deprecated IPv4-compatible (what URL makes of [::127.0.0.1])
  // ipaddr.js reads the dotted spelling ::a.b.c.d as IPv4-mapped; either way it is not public.
  ['::127.0.0.1', 'loopback'],
  ['4000::1', 'reserved'], // outside 2000::/3, unallocated
  // IPv4 hiding inside IPv6 is judged by the IPv4
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['[::ffff:192.168.0.1]', 'private'],
  ['64:ff9b::10.0.0.1', 'private'], // NAT64
  ['64:ff9b::8.8.8.8', 'public'],
  // local-use NAT64 (64:ff9b:1::/48) in the /96 layout: judged by the IPv4 in its last 32 bits
  ['64:ff9b:1::a9fe:a9fe', 'metadata'], // 169.254.169.254
  ['64:ff9b:1::7f00:1', 'loopback'],
  ['64:ff9b:1::a00:1', 'private'],
  ['64:ff9b:1::808:808', 'public'],
  ['64:ff9b:1:0:1::a9fe:a9fe', 'reserved'], // another layout: which IPv4 it reaches is unknown
  ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:0808:0808::1', 'public'],
];

test('classifyAddress', () => {
  for (const [ip, expected] of CLASSES) assert.equal(classifyAddress(ip), expected, ip);
});

test('classifyAddress rejects non-addresses and exotic IPv4 spellings', () => {
  for (const bad of ['example.com', '', '127.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '::g']) {
    assert.throws(() => classifyAddress(bad), TypeError, bad);
  }
});

test('resolved addresses: live allows only public, sandbox adds loopback and private', () => {
  // [ip, live ok, sandbox ok]
  const table: Array<[string, boolean, boolean]> = [
    ['93.184.216.34', true, true],
    ['2606:4700:4700::1111', true, true],
    ['127.0.0.1', false, true],
    ['::1', false, true],
    ['::ffff:127.0.0.1', false, true],
    ['10.0.0.5', false, true],
    ['fd12::5', false, true],
    ['169.254.169.254', false, false],
    ['::ffff:169.254.169.254', false, false],
    ['fd00:ec2::254', false, false],
    ['169.254.10.10', false, false],
    ['100.64.1.1', false, false],
    ['224.0.0.1', false, false],
    ['0.0.0.0', false, false],
    ['192.0.2.1', false, false],
    // local-use NAT64 is judged by the IPv4 inside, not waved through as private
    ['64:ff9b:1::a9fe:a9fe', false, false],
    ['64:ff9b:1::a00:5', false, true],
    ['64:ff9b:1:ab::a00:5', false, false],
  ];
  for (const [ip, liveOk, sandboxOk] of table) {
    assert.equal(checkResolvedAddress('hooks.example', ip, live).ok, liveOk, `live ${ip}`);
    assert.equal(checkResolvedAddress('hooks.example', ip, sandbox).ok, sandboxOk, `sandbox ${ip}`);
  }
  assert.equal(checkResolvedAddress('hooks.example', 'not-an-ip', sandbox).ok, false);
});

test('refusal reasons name the address, its class and the mode', () => {
  assert.deepEqual(checkResolvedAddress('h.example', '10.0.0.1', live), {
    ok: false,
    reason: 'address 10.0.0.1 is private, refused in live mode',
  });
});

test('an unknown mode gets the live rules (fail closed)', () => {
  const typo = { mode: 'sandbx', allowHttp: false, allowList: [] } as unknown as OutboundPolicy;
  assert.equal(checkResolvedAddress('h.example', '127.0.0.1', typo).ok, false);
  assert.equal(checkUrl('http://h.example/', typo).ok, false);
  assert.deepEqual(validatePolicy(typo), ['unknown mode: sandbx']);
});

test('allow-list opens live mode to IPs, CIDRs and hostnames', () => {
  const policy: OutboundPolicy = {
    mode: 'live',
    allowHttp: false,
    allowList: ['10.20.0.0/16', '192.168.1.5', 'fd00:1::/32', 'erp.merchant.lan', '*.corp.example'],
  };
  assert.equal(checkResolvedAddress('x.example', '10.20.3.4', policy).ok, true);
  assert.equal(checkResolvedAddress('x.example', '::ffff:10.20.3.4', policy).ok, true);
  assert.equal(checkResolvedAddress('x.example', '10.21.0.1', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '192.168.1.5', policy).ok, true);
  assert.equal(checkResolvedAddress('x.example', 'fd00:1:2::3', policy).ok, true);
  assert.equal(checkResolvedAddress('erp.merchant.lan', '10.9.9.9', policy).ok, true);
  assert.equal(checkResolvedAddress('ERP.Merchant.LAN.', '10.9.9.9', policy).ok, true);
  assert.equal(checkResolvedAddress('a.b.corp.example', '172.16.0.9', policy).ok, true);
  assert.equal(checkResolvedAddress('corp.example', '172.16.0.9', policy).ok, false); // *. means subdomains only
  assert.equal(checkResolvedAddress('evilcorp.example', '172.16.0.9', policy).ok, false);
  assert.equal(checkUrl('https://erp.merchant.lan/hook', policy).ok, true);
  assert.equal(checkUrl('https://10.20.0.1/hook', policy).ok, true);
});

test('a hostname allow entry never unlocks a metadata address; an explicit IP entry does', () => {
  const byName: OutboundPolicy = { mode: 'sandbox', allowHttp: false, allowList: ['trusted.example'] };
  assert.equal(checkResolvedAddress('trusted.example', '169.254.169.254', byName).ok, false);
  const byIp: OutboundPolicy = { mode: 'live', allowHttp: false, allowList: ['169.254.169.254'] };
  assert.equal(checkResolvedAddress('x.example', '169.254.169.254', byIp).ok, true);
});

test('deny entries (! in allowList, or denyList) forbid even in sandbox and beat allow entries', () => {
  const policy: OutboundPolicy = {
    mode: 'sandbox',
    allowHttp: false,
    allowList: ['!127.0.0.0/8', '!*.internal.example', '10.0.0.0/8'],
    denyList: ['10.0.0.99', 'blocked.example', '::1'],
  };
  assert.equal(checkResolvedAddress('x.example', '127.0.0.1', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '::ffff:127.0.0.1', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '::1', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '10.0.0.99', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '10.0.0.98', policy).ok, true);
  assert.equal(checkResolvedAddress('db.internal.example', '8.8.8.8', policy).ok, false);
  assert.equal(checkResolvedAddress('blocked.example', '8.8.8.8', policy).ok, false);
  assert.equal(checkResolvedAddress('x.example', '192.168.0.1', policy).ok, true);
  assert.equal(checkUrl('http://blocked.example/', policy).ok, false);
  assert.equal(checkUrl('http://127.0.0.1:3000/', policy).ok, false);
  // name allowed; its 127.0.0.1 is refused at connect time
  assert.equal(checkUrl('http://localhost:3000/', policy).ok, true);
  const both: OutboundPolicy = { mode: 'live', allowHttp: false, allowList: ['10.0.0.0/8', '!10.0.0.1'] };
  assert.equal(checkResolvedAddress('x.example', '10.0.0.1', both).ok, false);
  assert.equal(checkResolvedAddress('x.example', '10.0.0.2', both).ok, true);
});

test('checkUrl static checks', () => {
  const liveHttp: OutboundPolicy = { ...live, allowHttp: true };
  // [url, live, live+allowHttp, sandbox]
  const table: Array<[string, boolean, boolean, boolean]> = [
    ['https://hooks.example.com/pay', true, true, true],
    ['http://hooks.example.com/pay', false, true, true],
    ['https://8.8.8.8/x', true, true, true],
    ['https://[2606:4700:4700::1111]/x', true, true, true],
    ['http://localhost:3000/cb', false, false, true],
    ['http://LOCALHOST./cb', false, false, true],
    ['http://shop.localhost/cb', false, false, true],
    ['http://127.0.0.1:8080/cb', false, false, true],
    ['http://0x7f.1/cb', false, false, true], // URL parser normalises to 127.0.0.1
    ['http://2130706433/cb', false, false, true],
    ['http://[::1]/cb', false, false, true],
    ['http://[::ffff:127.0.0.1]/cb', false, false, true],
    ['https://10.0.0.1/cb', false, false, true],
    ['https://169.254.169.254/latest/meta-data', false, false, false],
    ['https://[fd00:ec2::254]/', false, false, false],
    ['https://100.64.0.1/', false, false, false],
    ['https://user:pw@hooks.example.com/', false, false, false],
    ['https://token@hooks.example.com/', false, false, false],
    ['ftp://hooks.example.com/', false, false, false],
    ['file:///etc/passwd', false, false, false],
    ['javascript:alert(1)', false, false, false],
    ['not a url', false, false, false],
    ['/relative/path', false, false, false],
  ];
  for (const [url, liveOk, liveHttpOk, sandboxOk] of table) {
    assert.equal(checkUrl(url, live).ok, liveOk, `live ${url}`);
    assert.equal(checkUrl(url, liveHttp).ok, liveHttpOk, `live+http ${url}`);
    assert.equal(checkUrl(url, sandbox).ok, sandboxOk, `sandbox ${url}`);
  }
});

test('allow-listing a host does not waive the https requirement', () => {
  const policy: OutboundPolicy = { mode: 'live', allowHttp: false, allowList: ['erp.merchant.lan'] };
  assert.deepEqual(checkUrl('http://erp.merchant.lan/', policy), { ok: false, reason: 'live mode requires https' });
});

test('validatePolicy reports unusable entries', () => {
  assert.deepEqual(
    validatePolicy({ mode: 'live', allowHttp: false, allowList: ['10.0.0.0/8', '!*.x.example', 'ok.example'] }),
    [],
  );
  const problems = validatePolicy({
    mode: 'live',
    allowHttp: false,
    allowList: ['10.0.0.0/33', 'https://x.example', '', '*.', '10.0.0.0/8/1'],
    denyList: ['!1.2.3.4'],
  });
  assert.equal(problems.length, 6);
  // A bare `*.` must not turn into "allow everything".
  const starDot: OutboundPolicy = { mode: 'live', allowHttp: false, allowList: ['*.'] };
  assert.equal(checkResolvedAddress('any.example', '10.0.0.1', starDot).ok, false);
});

test('a public-only sandbox (OUTBOUND_PUBLIC_ONLY) reaches what live mode does; its refusals name no address', () => {
  const publicOnly: OutboundPolicy = { mode: 'sandbox', allowHttp: true, allowList: [], publicOnly: true };
  for (const ip of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.2', 'fd12::5', '169.254.169.254']) {
    assert.equal(checkResolvedAddress('hooks.example', ip, publicOnly).ok, false, ip);
    assert.equal(checkUrl(`http://${ip.includes(':') ? `[${ip}]` : ip}/hook`, publicOnly).ok, false, ip);
  }
  assert.deepEqual(checkResolvedAddress('db.corp.lan', '10.0.0.5', publicOnly), {
    ok: false,
    reason: 'db.corp.lan is not a public address, refused in public-only sandbox mode',
  });
  assert.deepEqual(checkUrl('http://localhost:3000/hook', publicOnly), {
    ok: false,
    reason: 'localhost is loopback, refused in public-only sandbox mode',
  });
  // Plain http stays a sandbox's; public addresses and the operator's allow-list entries pass.
  assert.equal(checkUrl('http://hooks.example/x', publicOnly).ok, true);
  assert.equal(checkResolvedAddress('hooks.example', '93.184.216.34', publicOnly).ok, true);
  const opened = { ...publicOnly, allowList: ['10.0.0.5'] };
  assert.equal(checkResolvedAddress('erp.lan', '10.0.0.5', opened).ok, true);
  // Without the setting, a sandbox still reaches loopback and private targets.
  assert.equal(checkResolvedAddress('hooks.example', '10.0.0.5', { ...publicOnly, publicOnly: false }).ok, true);
});

test('what a target answered is recorded unless a public-only sandbox met it at a non-public address', () => {
  const publicOnly: OutboundPolicy = { mode: 'sandbox', allowHttp: true, allowList: [], publicOnly: true };
  assert.equal(mayRecordAnswerOf('93.184.216.34', publicOnly), true);
  assert.equal(mayRecordAnswerOf('::ffff:93.184.216.34', publicOnly), true);
  for (const address of ['127.0.0.1', '10.0.0.5', '::ffff:10.0.0.5', 'fd12::5', undefined]) {
    assert.equal(mayRecordAnswerOf(address, publicOnly), false, String(address));
    assert.equal(mayRecordAnswerOf(address, sandbox), true, String(address));
    assert.equal(mayRecordAnswerOf(address, live), true, String(address));
  }
});
