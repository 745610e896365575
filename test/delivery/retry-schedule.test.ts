// The retry rules (docs/notifications.md "Retries"): ladder, jitter, Retry-After, success and failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_RETRY_AFTER_MS,
  describeFailure,
  nextTransition,
  parseRetryAfter,
  withJitter,
  type ScheduleOptions,
} from '../../src/delivery/retry-schedule.ts';
import { loadConfig, DEFAULT_RETRY_LADDER, parseDuration } from '../../src/config.ts';

const NOW = 1_800_000_000_000;
const ladder = DEFAULT_RETRY_LADDER.split(',').map((s) => parseDuration(s)!);
const exact: ScheduleOptions = { ladderMs: ladder, jitterPercent: 0, random: () => 0.5 };
const fail500 = { kind: 'response', status: 500, retryAfter: undefined } as const;

test('the default ladder: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — eight attempts, then failed', () => {
  assert.deepEqual(ladder, [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 7; attempt++) {
    const t = nextTransition(fail500, attempt, NOW, exact);
    assert.equal(t.status, 'pending');
    if (t.status === 'pending') waits.push(t.nextAttemptAt - NOW);
  }
  assert.deepEqual(waits, ladder.slice(1));
  assert.deepEqual(nextTransition(fail500, 8, NOW, exact), { status: 'failed', lastError: 'HTTP 500' });
});

test('the configured ladder comes from RETRY_LADDER', () => {
  const config = loadConfig({ RETRY_LADDER: '0,20ms,20ms' });
  assert.deepEqual(config.retryLadderMs, [0, 20, 20]);
  const options = { ...exact, ladderMs: config.retryLadderMs };
  assert.equal(nextTransition(fail500, 2, NOW, options).status, 'pending');
  assert.equal(nextTransition(fail500, 3, NOW, options).status, 'failed');
});

test('any 2xx is delivered; 3xx, 4xx, 5xx and network errors are failures with a readable reason', () => {
  for (const status of [200, 201, 202, 204, 299]) {
    assert.deepEqual(nextTransition({ kind: 'response', status, retryAfter: undefined }, 1, NOW, exact), {
      status: 'delivered',
      deliveredAt: NOW,
    });
  }
  for (const status of [301, 302, 307, 400, 404, 410, 500, 502]) {
    assert.equal(nextTransition({ kind: 'response', status, retryAfter: undefined }, 1, NOW, exact).status, 'pending');
  }
  assert.equal(
    describeFailure({ kind: 'response', status: 302, retryAfter: undefined }),
    'HTTP 302: redirects are not followed',
  );
  assert.equal(
    describeFailure({ kind: 'error', error: 'timeout: no answer within 10000 ms' }),
    'timeout: no answer within 10000 ms',
  );
});

test('jitter stays within ± the percentage and never goes negative', () => {
  assert.equal(
    withJitter(1000, 10, () => 0),
    900,
  );
  assert.equal(
    withJitter(1000, 10, () => 0.999999),
    1000 + 100 - 0,
  );
  assert.equal(
    withJitter(0, 50, () => 0),
    0,
  );
  assert.equal(
    withJitter(5000, 0, () => 0),
    5000,
  );
  for (let i = 0; i < 1000; i++) {
    const v = withJitter(300_000, 20, Math.random);
    assert.ok(v >= 240_000 && v <= 360_000);
  }
});

test('Retry-After: delta seconds, HTTP dates, garbage ignored, capped', () => {
  assert.equal(parseRetryAfter('120', NOW), 120_000);
  assert.equal(parseRetryAfter(' 0 ', NOW), 0);
  assert.equal(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW), 90_000);
  assert.equal(parseRetryAfter(new Date(NOW - 90_000).toUTCString(), NOW), 0);
  assert.equal(parseRetryAfter('99999999', NOW), MAX_RETRY_AFTER_MS);
  for (const junk of [undefined, '', '-5', '1.5', 'soon', '5 minutes', '2030-01-01'])
    assert.equal(parseRetryAfter(junk, NOW), undefined, String(junk));
});

test('Retry-After only counts on 429 and 503, only delays, and never adds an attempt', () => {
  const after = (status: number, value: string) => ({ kind: 'response', status, retryAfter: value }) as const;
  const at = (t: ReturnType<typeof nextTransition>) => (t.status === 'pending' ? t.nextAttemptAt - NOW : t.status);
  assert.equal(at(nextTransition(after(503, '600'), 1, NOW, exact)), 600_000);
  assert.equal(at(nextTransition(after(429, '600'), 1, NOW, exact)), 600_000);
  assert.equal(at(nextTransition(after(500, '600'), 1, NOW, exact)), 5_000, 'ignored on 500');
  assert.equal(at(nextTransition(after(503, '1'), 3, NOW, exact)), 1_800_000, 'shorter than the rung: the rung wins');
  assert.equal(at(nextTransition(after(503, '1'), 8, NOW, exact)), 'failed');
});
