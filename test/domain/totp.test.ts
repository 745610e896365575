// TOTP against the published test vectors (RFC 4226 appendix D, RFC 6238 appendix B), plus the
// rules the console adds: ±1 step of drift, a code accepted once, base32 round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, hotp, otpauthUri, totpStep, verifyTotp } from '../../src/domain/totp.ts';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

test('HOTP: RFC 4226 appendix D values for counters 0-9', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.equal(hotp(RFC_SECRET, BigInt(counter)), code, `counter ${counter}`));
});

test('TOTP: RFC 6238 appendix B values (8 digits; SHA-1, SHA-256, SHA-512)', () => {
  const sha256Secret = Buffer.from('12345678901234567890123456789012', 'ascii');
  const sha512Secret = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii');
  const rows: Array<[number, string, string, string]> = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];
  for (const [seconds, sha1, sha256, sha512] of rows) {
    const step = totpStep(seconds * 1000);
    assert.equal(hotp(RFC_SECRET, step, 8, 'sha1'), sha1, `SHA-1 at ${seconds}`);
    assert.equal(hotp(sha256Secret, step, 8, 'sha256'), sha256, `SHA-256 at ${seconds}`);
    assert.equal(hotp(sha512Secret, step, 8, 'sha512'), sha512, `SHA-512 at ${seconds}`);
  }
});

test('verifyTotp accepts the current step and one either side, nothing further, and each step once', () => {
  const now = 1_700_000_000_000;
  const step = totpStep(now);
  const code = (s: bigint) => hotp(RFC_SECRET, s);
  assert.equal(verifyTotp(RFC_SECRET, code(step), now, null), step);
  assert.equal(verifyTotp(RFC_SECRET, code(step - 1n), now, null), step - 1n);
  assert.equal(verifyTotp(RFC_SECRET, code(step + 1n), now, null), step + 1n);
  assert.equal(verifyTotp(RFC_SECRET, code(step - 2n), now, null), undefined);
  assert.equal(verifyTotp(RFC_SECRET, code(step + 2n), now, null), undefined);
  assert.equal(verifyTotp(RFC_SECRET, code(step), now, step), undefined, 'a step already used is refused');
  assert.equal(verifyTotp(RFC_SECRET, code(step - 1n), now, step - 1n), undefined, 'an older step too');
  assert.equal(verifyTotp(RFC_SECRET, '12345', now, null), undefined);
  assert.equal(verifyTotp(RFC_SECRET, 'abcdef', now, null), undefined);
});

test('base32 round-trips and matches RFC 4648 §10', () => {
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.equal(base32Encode(Buffer.from('f')), 'MY');
  assert.equal(base32Decode('MZXW6YTBOI======').toString(), 'foobar');
  assert.equal(base32Decode('mzxw 6ytb oi').toString(), 'foobar');
  assert.deepEqual(base32Decode(base32Encode(RFC_SECRET)), RFC_SECRET);
  assert.throws(() => base32Decode('MZ1'));
});

test('otpauth URI carries the base32 secret and issuer', () => {
  const uri = new URL(otpauthUri('Gateway console', 'alice', RFC_SECRET));
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.searchParams.get('secret'), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.equal(uri.searchParams.get('issuer'), 'Gateway console');
  assert.equal(uri.searchParams.get('digits'), '6');
});
