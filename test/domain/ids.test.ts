// Transaction identifiers (docs/api.md "Initiation"): a UUIDv7 id, and token and redirect id that
// carry it under a MAC (test/domain/keyed-ids.test.ts); the random pool behind the ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTransactionIdentifiers, drawRandomBytes } from '../../src/domain/ids.ts';
import { transactionIdOf } from '../../src/domain/keyed-ids.ts';

const at = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
const key = Buffer.alloc(32, 9);

test('a new transaction: a UUIDv7 id of its creation time, token and redirect id that carry it', () => {
  const ids = newTransactionIdentifiers(at, key);
  assert.match(ids.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(Number.parseInt(ids.id.replaceAll('-', '').slice(0, 12), 16), at);
  assert.match(ids.token, /^[A-Za-z0-9_-]{44}$/);
  assert.match(ids.redirectId, /^[A-Za-z0-9_-]{44}$/);
  assert.equal(transactionIdOf(key, 'token', ids.token), ids.id);
  assert.equal(transactionIdOf(key, 'redirect-id', ids.redirectId), ids.id);
  assert.notEqual(ids.token, ids.redirectId);
});

test('ids of one millisecond differ (74 random bits each)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const { id, redirectId } = newTransactionIdentifiers(at, key);
    assert.ok(!seen.has(id) && !seen.has(redirectId), 'an identifier repeated');
    seen.add(id).add(redirectId);
  }
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
