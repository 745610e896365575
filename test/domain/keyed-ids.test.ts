// Keyed token and redirect id (src/domain/keyed-ids.ts, docs/architecture.md "Identifiers"): the
// transaction id comes back only when the MAC verifies under the same key and the same kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYED_ID_LENGTH, keyedId, transactionIdOf } from '../../src/domain/keyed-ids.ts';
import { uuidv7 } from '../../src/domain/ids.ts';

const key = Buffer.alloc(32, 1);
const otherKey = Buffer.alloc(32, 2);
const id = uuidv7(Date.UTC(2026, 10, 26, 9, 0, 0));
const otherId = uuidv7(Date.UTC(2026, 10, 26, 9, 0, 1));

test('44 URL-safe characters (never 32 or 43, the earlier forms); the id comes back', () => {
  for (const kind of ['token', 'redirect-id'] as const) {
    const value = keyedId(key, kind, id);
    assert.equal(value.length, KEYED_ID_LENGTH);
    assert.match(value, /^[A-Za-z0-9_-]+$/);
    assert.equal(transactionIdOf(key, kind, value), id);
    assert.equal(keyedId(key, kind, id), value, 'deterministic');
  }
});

test('token and redirect id use different MACs: neither opens as the other', () => {
  const token = keyedId(key, 'token', id);
  const redirectId = keyedId(key, 'redirect-id', id);
  assert.notEqual(token.slice(-22), redirectId.slice(-22));
  assert.equal(transactionIdOf(key, 'redirect-id', token), undefined);
  assert.equal(transactionIdOf(key, 'token', redirectId), undefined);
});

test('a forged, truncated, re-keyed or borrowed MAC opens nothing', () => {
  const value = keyedId(key, 'redirect-id', id);
  const bytes = Buffer.from(value, 'base64url');
  const flip = (at: number) => {
    const copy = Buffer.from(bytes);
    copy[at]! ^= 0x01;
    return copy.toString('base64url');
  };
  assert.equal(transactionIdOf(key, 'redirect-id', flip(bytes.length - 1)), undefined, 'a MAC bit flipped');
  assert.equal(transactionIdOf(key, 'redirect-id', flip(5)), undefined, 'an id bit flipped');
  assert.equal(transactionIdOf(key, 'redirect-id', flip(0)), undefined, 'another version byte');
  assert.equal(transactionIdOf(key, 'redirect-id', value.slice(0, 43)), undefined, 'truncated');
  assert.equal(transactionIdOf(key, 'redirect-id', `${value}A`), undefined, 'extended');
  assert.equal(transactionIdOf(key, 'redirect-id', `${value.slice(0, 43)}=`), undefined, 'outside the alphabet');
  assert.equal(transactionIdOf(otherKey, 'redirect-id', value), undefined, 'another gateway key');
  // Another transaction's MAC on this id.
  const other = Buffer.from(keyedId(key, 'redirect-id', otherId), 'base64url');
  const borrowed = Buffer.concat([bytes.subarray(0, 17), other.subarray(17)]).toString('base64url');
  assert.equal(transactionIdOf(key, 'redirect-id', borrowed), undefined);
});

test('only a UUID can be keyed', () => {
  assert.throws(() => keyedId(key, 'token', 'not-a-uuid'), /not a UUID/);
});
