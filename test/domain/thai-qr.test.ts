import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  buildThaiQrPayload,
  crc16CcittFalse,
  parseTlv,
  sanitiseMerchantName,
  thaiQrReferenceFor,
  verifyThaiQrPayload,
} from '../../src/domain/thai-qr.ts';
import { renderQrSvg } from '../../src/http/hosted-page/qr-svg.ts';

// Independent, deliberately naive CRC-16/CCITT-FALSE (ASCII input only) so the tests
// don't trust the module's implementation to check itself.
function referenceCrc(ascii: string): string {
  let crc = 0xffff;
  for (let i = 0; i < ascii.length; i++) {
    crc ^= ascii.charCodeAt(i) << 8;
    for (let b = 0; b < 8; b++) {
      crc = (crc & 0x8000) !== 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      crc &= 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const BILLER = '010555512345601';
const THB = (baht: bigint, satang = 0n): bigint => (baht * 100n + satang) * 100n; // -> 1/10,000 THB

describe('crc16CcittFalse', () => {
  it('matches the catalogue check value for "123456789"', () => {
    assert.equal(crc16CcittFalse('123456789'), '29B1');
    assert.equal(referenceCrc('123456789'), '29B1'); // guards the in-test oracle too
  });

  it('returns the init value for empty input (so no xorout is applied)', () => {
    assert.equal(crc16CcittFalse(''), 'FFFF');
  });

  it('pads to 4 upper-case hex digits', () => {
    // Pick an input whose CRC has a leading zero nibble, so a missing padStart would show.
    const input = Array.from({ length: 5000 }, (_, i) => `x${i}`).find((s) => referenceCrc(s).startsWith('0'));
    assert.ok(input !== undefined);
    assert.equal(crc16CcittFalse(input), referenceCrc(input));
    assert.match(crc16CcittFalse(input), /^0[0-9A-F]{3}$/);
  });

  it('agrees with the independent implementation on arbitrary ASCII', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...' 0123456789ABCDEFabcxyz.-') }), (s) => {
        assert.equal(crc16CcittFalse(s), referenceCrc(s));
      }),
    );
  });
});

describe('buildThaiQrPayload: hand-computed payload', () => {
  it('matches the payload derived by hand from the EMVCo / Thai QR rules', () => {
    // 00 02 01                          payload format indicator
    // 01 02 12                          point of initiation: dynamic
    // 30 64                             merchant account info (bill payment), 64 chars:
    //    00 16 A000000677010112           AID
    //    01 15 010555512345601            biller id (tax id + suffix)
    //    02 10 INV2024001                 reference 1
    //    03 07 ORDER42                    reference 2
    // 53 03 764                         currency THB
    // 54 06 150.50                      amount
    // 58 02 TH                          country
    // 59 11 Siam Coffee                 merchant name
    // 63 04 26DD                        CRC-16/CCITT-FALSE over everything up to "6304"
    const body =
      '000201' +
      '010212' +
      '3064' +
      '0016A000000677010112' +
      '0115010555512345601' +
      '0210INV2024001' +
      '0307ORDER42' +
      '5303764' +
      '5406150.50' +
      '5802TH' +
      '5911Siam Coffee' +
      '6304';
    // Computed once, independently (Python binascii.crc_hqx(body, 0xFFFF)), and pinned.
    assert.equal(referenceCrc(body), '26DD');
    const expected =
      '00020101021230640016A00000067701011201150105555123456010210INV20240010307ORDER42' +
      '53037645406150.505802TH5911Siam Coffee630426DD';
    assert.equal(body + '26DD', expected);

    const actual = buildThaiQrPayload({
      billerId: BILLER,
      reference1: 'INV2024001',
      reference2: 'ORDER42',
      amountMinor: THB(150n, 50n),
      merchantName: 'Siam Coffee',
    });
    assert.equal(actual, expected);
  });
});

describe('buildThaiQrPayload: round trip', () => {
  const cases: Array<{
    amountMinor: bigint;
    text: string;
    reference1: string;
    reference2?: string;
    merchantName?: string;
  }> = [
    { amountMinor: THB(100n), text: '100.00', reference1: 'A1' },
    { amountMinor: THB(150n, 50n), text: '150.50', reference1: 'INV0001', reference2: 'CUST9', merchantName: 'Shop' },
    {
      amountMinor: THB(9999n, 99n),
      text: '9999.99',
      reference1: '12345678901234567890',
      reference2: 'ABCDEFGHIJKLMNOPQRST',
    },
    {
      amountMinor: THB(10000n),
      text: '10000.00',
      reference1: 'Z',
      merchantName: 'A Very Long Merchant Name Indeed Co Ltd',
    },
    {
      amountMinor: THB(2000000n),
      text: '2000000.00',
      reference1: thaiQrReferenceFor('0198a3c4-5e6f-7abc-9def-0123456789ab'),
    },
    { amountMinor: THB(0n, 1n), text: '0.01', reference1: 'ONESATANG' },
  ];

  for (const c of cases) {
    it(`encodes ${c.text} THB / ${c.reference1} and parses back field by field`, () => {
      const payload = buildThaiQrPayload({ billerId: BILLER, ...c });
      const top = parseTlv(payload);

      const expectedName = c.merchantName === undefined ? undefined : sanitiseMerchantName(c.merchantName);
      const expectedTags = ['00', '01', '30', '53', '54', '58', ...(expectedName ? ['59'] : []), '63'];
      assert.deepEqual(
        top.map((f) => f.tag),
        expectedTags,
        'tag order',
      );

      const f = Object.fromEntries(top.map((x) => [x.tag, x.value]));
      assert.equal(f['00'], '01');
      assert.equal(f['01'], '12');
      assert.equal(f['53'], '764');
      assert.equal(f['54'], c.text);
      assert.equal(f['58'], 'TH');
      assert.equal(f['59'], expectedName);

      const sub = parseTlv(f['30'] ?? '');
      assert.deepEqual(sub, [
        { tag: '00', value: 'A000000677010112' },
        { tag: '01', value: BILLER },
        { tag: '02', value: c.reference1 },
        ...(c.reference2 !== undefined ? [{ tag: '03', value: c.reference2 }] : []),
      ]);

      // CRC is last, covers "…6304", and agrees with the independent implementation.
      assert.ok(payload.slice(-8, -4) === '6304');
      assert.equal(f['63'], referenceCrc(payload.slice(0, -4)));

      const v = verifyThaiQrPayload(payload);
      assert.deepEqual(v.errors, []);
      assert.equal(v.ok, true);
      assert.equal(v.fields['54'], c.text);
      assert.equal(v.billPayment['02'], c.reference1);
    });
  }

  it('sanitises the merchant name to ≤25 printable ASCII chars', () => {
    assert.equal(sanitiseMerchantName('Café Ñoño ร้านกาแฟ Bangkok Branch Number 1'), 'Cafe Nono Bangkok Branch');
    assert.equal(sanitiseMerchantName('Shop\n\t"<x>"'), 'Shop"<x>"');
    const payload = buildThaiQrPayload({
      billerId: BILLER,
      reference1: 'R1',
      amountMinor: THB(1n),
      merchantName: 'ร้านกาแฟ',
    });
    // Nothing ASCII left: tag 59 is omitted rather than emitted empty.
    assert.equal(verifyThaiQrPayload(payload).fields['59'], undefined);
    assert.equal(verifyThaiQrPayload(payload).ok, true);
  });
});

describe('buildThaiQrPayload: input validation', () => {
  const ok = { billerId: BILLER, reference1: 'INV1', amountMinor: THB(100n) };

  it('rejects amounts that are not whole satang', () => {
    for (const amountMinor of [1n, 50n, 1_505_001n, THB(100n) + 99n]) {
      assert.throws(() => buildThaiQrPayload({ ...ok, amountMinor }), /whole number of satang/);
    }
  });

  it('rejects zero, negative and over-long amounts', () => {
    assert.throws(() => buildThaiQrPayload({ ...ok, amountMinor: 0n }), /positive/);
    assert.throws(() => buildThaiQrPayload({ ...ok, amountMinor: -THB(1n) }), /positive/);
    // 9,999,999,999.99 is the 13-char maximum; one satang more needs 14 chars.
    assert.doesNotThrow(() => buildThaiQrPayload({ ...ok, amountMinor: THB(9_999_999_999n, 99n) }));
    assert.throws(() => buildThaiQrPayload({ ...ok, amountMinor: THB(10_000_000_000n) }), /13-character/);
  });

  it('rejects references that are not 1-20 upper-case alphanumerics', () => {
    for (const bad of ['', 'inv1', 'INV-1', 'INV 1', 'ABCDEFGHIJKLMNOPQRSTU', 'ก123', 'ÄBC']) {
      assert.throws(() => buildThaiQrPayload({ ...ok, reference1: bad }), /reference1/, `reference1 ${bad}`);
      assert.throws(() => buildThaiQrPayload({ ...ok, reference2: bad }), /reference2/, `reference2 ${bad}`);
    }
  });

  it('rejects biller ids that are not 15 digits', () => {
    for (const bad of ['01055551234560', '0105555123456011', '01055551234560A', '']) {
      assert.throws(() => buildThaiQrPayload({ ...ok, billerId: bad }), /billerId/);
    }
  });
});

describe('parseTlv / verifyThaiQrPayload', () => {
  const good = buildThaiQrPayload({
    billerId: BILLER,
    reference1: 'INV1',
    amountMinor: THB(250n),
    merchantName: 'Shop',
  });

  it('throws on truncated or non-numeric TLV', () => {
    assert.throws(() => parseTlv('0002'), /declares length 2/);
    assert.throws(() => parseTlv('00020'), /declares length 2/);
    assert.throws(() => parseTlv('0A0201'), /2-digit tag/);
    assert.throws(() => parseTlv('000201X'), /offset 6/);
  });

  it('flags a single altered character via the CRC', () => {
    const tampered = good.replace('250.00', '950.00');
    const v = verifyThaiQrPayload(tampered);
    assert.equal(v.ok, false);
    assert.match(v.errors.join(';'), /CRC mismatch/);
  });

  it('flags a wrong CRC value, a missing CRC and a broken structure', () => {
    const wrongCrc = good.slice(0, -4) + (good.endsWith('0000') ? '0001' : '0000');
    assert.equal(verifyThaiQrPayload(wrongCrc).ok, false);
    assert.equal(verifyThaiQrPayload(good.slice(0, -8)).ok, false); // no tag 63 at all
    const broken = verifyThaiQrPayload(good.slice(0, -1));
    assert.equal(broken.ok, false);
    assert.ok(broken.errors.length > 0);
  });

  it('accepts a lower-case CRC but reports the computed one in upper case', () => {
    // Find a payload whose CRC contains a letter, otherwise lower-casing changes nothing.
    const withLetter = ['INV1', 'INV2', 'INV3', 'INV4', 'INV5', 'INV6']
      .map((reference1) => buildThaiQrPayload({ billerId: BILLER, reference1, amountMinor: THB(250n) }))
      .find((p) => /[A-F]/.test(p.slice(-4)));
    assert.ok(withLetter !== undefined);
    const lower = withLetter.slice(0, -4) + withLetter.slice(-4).toLowerCase();
    assert.notEqual(lower, withLetter);
    const v = verifyThaiQrPayload(lower);
    assert.equal(v.ok, true);
    assert.equal(v.crc.computed, withLetter.slice(-4));
  });
});

describe('thaiQrReferenceFor', () => {
  it('produces a fixed 20-char upper-case alphanumeric reference (known answers)', () => {
    // Expected values computed independently (Python big-int port of the documented packing).
    assert.equal(thaiQrReferenceFor('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), '05QXFDJGRI1UJ4RPSJSU');
    assert.equal(thaiQrReferenceFor('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), '05QXFDJGRI1UJ4RPSJSU');
    assert.equal(thaiQrReferenceFor('0198a3c4-5e6f-7abc-9def-0123456789ab'), '064PAQ15WOYICD8ZRXXS');
    // Largest possible id still fits in 20 chars.
    assert.equal(thaiQrReferenceFor('ffffffff-ffff-7fff-bfff-ffffffffffff'), 'RB7F16Q855GQWBNQO740');
  });

  it('separates ids that differ only in rand_a, only in the last hex digit, or only in the ms', () => {
    const base = '0198a3c4-5e6f-7abc-9def-0123456789ab';
    const r = thaiQrReferenceFor(base);
    assert.notEqual(thaiQrReferenceFor('0198a3c4-5e6f-7abd-9def-0123456789ab'), r); // rand_a (sub-ms/counter)
    assert.notEqual(thaiQrReferenceFor('0198a3c4-5e6f-7abc-9def-0123456789ac'), r); // low rand_b
    assert.notEqual(thaiQrReferenceFor('0198a3c4-5e6f-7abc-adef-0123456789ab'), r); // top rand_b (via fold)
    assert.notEqual(thaiQrReferenceFor('0198a3c4-5e70-7abc-9def-0123456789ab'), r); // next millisecond
  });

  it('sorts like the creation time and has no collisions within one millisecond', () => {
    const earlier = thaiQrReferenceFor('0198a3c4-5e6f-7fff-bfff-ffffffffffff');
    const later = thaiQrReferenceFor('0198a3c4-5e70-7000-8000-000000000000');
    assert.ok(earlier < later);

    // 4,096 ids in the same ms using every rand_a value (as a PostgreSQL-18-style sub-ms
    // clock would) plus random tails: all references must differ.
    const seen = new Set<string>();
    const randomHex = (n: number): string =>
      Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => (b & 15).toString(16)).join('');
    for (let a = 0; a < 4096; a++) {
      const randA = a.toString(16).padStart(3, '0');
      const variant = '89ab'[a % 4] ?? '8';
      const id = `0198a3c4-5e6f-7${randA}-${variant}${randomHex(3)}-${randomHex(12)}`;
      seen.add(thaiQrReferenceFor(id));
    }
    assert.equal(seen.size, 4096);
  });

  it('rejects ids that are not UUIDv7', () => {
    for (const bad of [
      '',
      'not-a-uuid',
      '0198a3c45e6f7abc9def0123456789ab',
      '0198a3c4-5e6f-4abc-9def-0123456789ab',
      '0198a3c4-5e6f-7abc-cdef-0123456789ab',
    ]) {
      assert.throws(() => thaiQrReferenceFor(bad), /UUIDv7/, bad);
    }
  });
});

describe('renderQrSvg', () => {
  const payload = buildThaiQrPayload({ billerId: BILLER, reference1: 'INV1', amountMinor: THB(100n) });

  it('returns inline, accessible SVG with path data', async () => {
    const svg = await renderQrSvg(payload, 'Scan to pay 100.00 THB');
    assert.ok(svg.startsWith('<svg'), svg.slice(0, 40));
    assert.ok(!svg.includes('<?xml'));
    assert.ok(svg.endsWith('</svg>'));
    assert.match(svg, /^<svg [^>]*role="img"/);
    assert.match(svg, /^<svg [^>]*aria-label="Scan to pay 100\.00 THB"/);
    assert.match(svg, /<path [^>]*d="M[0-9][^"]{50,}"/);
  });

  it('escapes the label and encodes different payloads differently', async () => {
    const svg = await renderQrSvg(payload, 'A "quoted" <b>&');
    assert.match(svg, /aria-label="A &quot;quoted&quot; &lt;b&gt;&amp;"/);
    const other = await renderQrSvg(
      buildThaiQrPayload({ billerId: BILLER, reference1: 'INV2', amountMinor: THB(100n) }),
    );
    assert.notEqual(other.replace(/aria-label="[^"]*"/, ''), svg.replace(/aria-label="[^"]*"/, ''));
  });
});
