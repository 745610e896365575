import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/domain/webhook-signature.ts';
import { verifyNotification } from '../../packages/client/src/index.ts';

// Test vector published with the Standard Webhooks reference libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

// Written from the spec text, sharing no code with the module under test.
function referenceSign(secret: string, id: string, ts: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
}

function headersFor(id: string, ts: number, signature: string) {
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
}

const at = { nowSeconds: VECTOR.timestamp };

test('matches the Standard Webhooks test vector', () => {
  assert.equal(signWebhook([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
  assert.equal(referenceSign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
  const headers = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
  assert.deepEqual(verifyWebhook(VECTOR.secret, headers, VECTOR.body, at), { ok: true });
});

test('generated secrets are whsec_ + base64 of 32 bytes and agree with the reference', () => {
  const secret = generateWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  assert.notEqual(secret, generateWebhookSecret());
  const sig = signWebhook([secret], 'evt_1', 1700000000, '{"a":1}');
  assert.equal(sig, referenceSign(secret, 'evt_1', 1700000000, '{"a":1}'));
});

test('keys on the decoded bytes, not the ASCII of the secret', () => {
  const asciiKeyed =
    'v1,' +
    createHmac('sha256', VECTOR.secret).update(`${VECTOR.id}.${VECTOR.timestamp}.${VECTOR.body}`).digest('base64');
  assert.notEqual(signWebhook([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body), asciiKeyed);
});

test('rotation: one v1 entry per secret, either secret verifies', () => {
  const oldSecret = generateWebhookSecret();
  const newSecret = generateWebhookSecret();
  const header = signWebhook([newSecret, oldSecret], 'evt_rot', 1700000000, 'body');
  assert.equal(
    header,
    [
      referenceSign(newSecret, 'evt_rot', 1700000000, 'body'),
      referenceSign(oldSecret, 'evt_rot', 1700000000, 'body'),
    ].join(' '),
  );
  const headers = headersFor('evt_rot', 1700000000, header);
  const now = { nowSeconds: 1700000000 };
  assert.equal(verifyWebhook(oldSecret, headers, 'body', now).ok, true);
  assert.equal(verifyWebhook(newSecret, headers, 'body', now).ok, true);
  assert.equal(verifyWebhook(generateWebhookSecret(), headers, 'body', now).ok, false);
});

test('ignores unknown versions and junk entries but still finds v1', () => {
  const headers = headersFor(VECTOR.id, VECTOR.timestamp, `v2,abc v1a,zzz nonsense ${VECTOR.signature}`);
  assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body, at).ok, true);
  const onlyV2 = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature.replace('v1,', 'v2,'));
  assert.deepEqual(verifyWebhook(VECTOR.secret, onlyV2, VECTOR.body, at), {
    ok: false,
    reason: 'no v1 signature present',
  });
});

test('rejects tampering with body, id, timestamp or signature', () => {
  const ok = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
  assert.equal(verifyWebhook(VECTOR.secret, ok, '{"test": 2432232315}', at).ok, false);
  assert.equal(verifyWebhook(VECTOR.secret, ok, VECTOR.body + ' ', at).ok, false);
  assert.equal(verifyWebhook(VECTOR.secret, { ...ok, 'webhook-id': 'msg_other' }, VECTOR.body, at).ok, false);
  const shifted = { ...ok, 'webhook-timestamp': String(VECTOR.timestamp + 1) };
  assert.equal(verifyWebhook(VECTOR.secret, shifted, VECTOR.body, at).ok, false);
  const leadingZero = { ...ok, 'webhook-timestamp': '0' + VECTOR.timestamp };
  assert.equal(verifyWebhook(VECTOR.secret, leadingZero, VECTOR.body, at).ok, false);
  const flipped = 'v1,h' + VECTOR.signature.slice(4); // first digest character g -> h
  assert.equal(verifyWebhook(VECTOR.secret, { ...ok, 'webhook-signature': flipped }, VECTOR.body, at).ok, false);
  // Same bytes once decoded ('E' and 'F' differ only in base64 padding bits),
  // but not the canonical encoding: compared as text, so refused.
  const nonCanonical = VECTOR.signature.replace(/E=$/, 'F=');
  assert.equal(verifyWebhook(VECTOR.secret, { ...ok, 'webhook-signature': nonCanonical }, VECTOR.body, at).ok, false);
  assert.equal(verifyWebhook(VECTOR.secret, { ...ok, 'webhook-signature': 'v1,short' }, VECTOR.body, at).ok, false);
});

test('timestamp tolerance applies in both directions', () => {
  const headers = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
  const verify = (nowSeconds: number, toleranceSeconds?: number) =>
    verifyWebhook(
      VECTOR.secret,
      headers,
      VECTOR.body,
      toleranceSeconds === undefined ? { nowSeconds } : { nowSeconds, toleranceSeconds },
    );
  assert.equal(verify(VECTOR.timestamp + 300).ok, true);
  assert.equal(verify(VECTOR.timestamp - 300).ok, true);
  assert.deepEqual(verify(VECTOR.timestamp + 301), { ok: false, reason: 'timestamp too old' });
  assert.deepEqual(verify(VECTOR.timestamp - 301), { ok: false, reason: 'timestamp too far in the future' });
  assert.equal(verify(VECTOR.timestamp + 30, 10).ok, false);
  assert.equal(verify(VECTOR.timestamp - 30, 10).ok, false);
  // Without nowSeconds the real clock is used: a 2021 timestamp is stale.
  assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body).ok, false);
});

test('header handling: case-insensitive, arrays, missing and malformed', () => {
  const upper = {
    'Webhook-Id': VECTOR.id,
    'WEBHOOK-TIMESTAMP': String(VECTOR.timestamp),
    'Webhook-Signature': VECTOR.signature,
  };
  assert.equal(verifyWebhook(VECTOR.secret, upper, VECTOR.body, at).ok, true);
  const arrays = {
    'webhook-id': [VECTOR.id],
    'webhook-timestamp': [String(VECTOR.timestamp)],
    'webhook-signature': ['v1,bogus', VECTOR.signature],
  };
  assert.equal(verifyWebhook(VECTOR.secret, arrays, VECTOR.body, at).ok, true);
  const twoIds = { ...arrays, 'webhook-id': [VECTOR.id, 'msg_x'] };
  assert.equal(verifyWebhook(VECTOR.secret, twoIds, VECTOR.body, at).ok, false);
  const full = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
    const result = verifyWebhook(VECTOR.secret, { ...full, [name]: undefined }, VECTOR.body, at);
    assert.deepEqual(result, { ok: false, reason: `missing ${name} header` });
  }
  assert.equal(
    verifyWebhook(VECTOR.secret, { ...full, 'webhook-timestamp': '1614265330.5' }, VECTOR.body, at).ok,
    false,
  );
  assert.equal(verifyWebhook('whsec_not*base64', full, VECTOR.body, at).ok, false);
});

test('Buffer bodies verify like strings', () => {
  const headers = headersFor(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
  assert.equal(verifyWebhook(VECTOR.secret, headers, Buffer.from(VECTOR.body), at).ok, true);
});

test('signWebhook refuses bad input', () => {
  assert.throws(() => signWebhook([], 'id', 1, 'b'));
  assert.throws(() => signWebhook(['whsec_@@@'], 'id', 1, 'b'));
  assert.throws(() => signWebhook([VECTOR.secret], 'id', 1.5, 'b'));
});

test('the client package verifyNotification: tolerance option, several secrets, Headers objects', () => {
  const now = Math.floor(Date.now() / 1000);
  const secret = generateWebhookSecret();
  const body = '{"event":"payment.succeeded"}';
  const headers = headersFor('evt_9', now, referenceSign(secret, 'evt_9', now, body));
  assert.deepEqual(verifyNotification(secret, headers, body), { ok: true });
  assert.equal(verifyNotification(secret, headers, body + 'x').ok, false);
  const stale = headersFor('evt_9', now - 120, referenceSign(secret, 'evt_9', now - 120, body));
  assert.equal(verifyNotification(secret, stale, body).ok, true);
  assert.equal(verifyNotification(secret, stale, body, { toleranceSeconds: 60 }).ok, false);
  const other = generateWebhookSecret();
  assert.deepEqual(verifyNotification([other, secret], headers, body), { ok: true }, 'any of several secrets');
  assert.deepEqual(verifyNotification([other], headers, body), { ok: false, reason: 'no signature matched' });
  assert.deepEqual(verifyNotification([], headers, body), { ok: false, reason: 'no secret given' });
  assert.equal(
    verifyNotification([other, 'whsec_@@'], headers, body).ok,
    false,
    'a malformed secret is a configuration error',
  );
  assert.deepEqual(verifyNotification(secret, new Headers(headers), body), { ok: true }, 'a fetch Headers object');
});

test(
  'the standardwebhooks npm package (the alternative ' + 'docs/notifications.md names) verifies what the gateway signs',
  async () => {
    const { Webhook } = await import('standardwebhooks');
    const secret = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const body = '{"type":"valid","result":"CAPTURED","event_id":"evt_1"}';
    const now = Math.floor(Date.now() / 1000);
    const headers = headersFor('evt_1', now, signWebhook([secret, previous], 'evt_1', now, body));
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body), 'either secret during a rotation');
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers));
  },
);
