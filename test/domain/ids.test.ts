// Transaction identifiers (docs/api.md "Initiation"): token and redirect id are URL-safe, carry ≥
// 128 random bits after their time prefix, keep their lengths, and are distinct from each other and
// the id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTransactionIdentifiers, drawRandomBytes } from '../../src/domain/ids.ts';

const at = Date.UTC(2026, 10, 22, 12, 0, 0, 123);

test('token and redirect id: URL-safe, today’s lengths, prefixed with the creation time in milliseconds', () => {
  const ids = newTransactionIdentifiers(at);
  assert.match(ids.token, /^[A-Za-z0-9_-]{43}$/);
  assert.match(ids.redirectId, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(Buffer.from(ids.token, 'base64url').readUIntBE(0, 6), at);
  assert.equal(Buffer.from(ids.redirectId, 'base64url').readUIntBE(0, 6), at);
  assert.match(ids.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('the random parts differ between draws and between the identifiers of one draw (208 and 144 bits)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const { token, redirectId } = newTransactionIdentifiers(at);
    const tokenRandom = Buffer.from(token, 'base64url').subarray(6);
    const redirectRandom = Buffer.from(redirectId, 'base64url').subarray(6);
    assert.equal(tokenRandom.length * 8, 208);
    assert.equal(redirectRandom.length * 8, 144);
    assert.notDeepEqual(tokenRandom.subarray(0, 18), redirectRandom);
    for (const part of [tokenRandom.toString('hex'), redirectRandom.toString('hex')]) {
      assert.ok(!seen.has(part), 'a random part repeated');
      seen.add(part);
    }
  }
});

test('later identifiers sort after earlier ones (their indexes append)', () => {
  const earlier = newTransactionIdentifiers(at);
  const later = newTransactionIdentifiers(at + 1);
  assert.ok(Buffer.from(earlier.token, 'base64url').compare(Buffer.from(later.token, 'base64url')) < 0);
  assert.ok(Buffer.from(earlier.redirectId, 'base64url').compare(Buffer.from(later.redirectId, 'base64url')) < 0);
});

test(
  'pooled random bytes: draws across many refills never ' + 'overlap or repeat, and a draw is not overwritten later',
  () => {
    const first = drawRandomBytes(60);
    const kept = Buffer.from(first);
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const draw = drawRandomBytes(60); // 5,000 × 60 bytes: about 73 refills of the 4 KiB pool
      assert.equal(draw.length, 60);
      const hex = draw.toString('hex');
      assert.ok(!seen.has(hex), 'a draw repeated');
      seen.add(hex);
      draw.fill(0); // a caller writing into its draw (uuidv7 does) must not touch anyone else's
    }
    assert.deepEqual(first, kept, 'an early draw kept its bytes through later draws and refills');
    assert.ok(!first.every((b) => b === 0));
  },
);
