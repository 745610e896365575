// Asia/Bangkok days and minutes (src/domain/bangkok-time.ts): UTC+7 all year, so a Bangkok day
// starts at 17:00 UTC the day before, whatever the season.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bangkokDate, bangkokDayNumber, bangkokDayStart, bangkokMinute } from '../../src/domain/bangkok-time.ts';

test('a calendar day starts at 17:00 UTC the day before, in January as in July', () => {
  assert.equal(bangkokDayStart('2026-01-05'), Date.parse('2026-01-04T17:00:00Z'));
  assert.equal(bangkokDayStart('2026-07-01'), Date.parse('2026-06-30T17:00:00Z'));
  assert.equal(bangkokDayStart('2028-02-29'), Date.parse('2028-02-28T17:00:00Z'));
});

test('what is not a real date is undefined', () => {
  for (const text of ['2026-02-30', '2027-02-29', '2026-13-01', '2026-1-5', '05/01/2026', '', '2026-01-05T00:00'])
    assert.equal(bangkokDayStart(text), undefined, text);
});

test('the date of an instant is its Bangkok date, changing at 17:00 UTC', () => {
  assert.equal(bangkokDate(Date.parse('2026-01-04T16:59:59.999Z')), '2026-01-04');
  assert.equal(bangkokDate(Date.parse('2026-01-04T17:00:00Z')), '2026-01-05');
});

test('two instants share a day number exactly when they share a Bangkok date', () => {
  const lastMs = Date.parse('2026-01-05T23:59:59.999+07:00');
  const nextDay = Date.parse('2026-01-06T00:00:00+07:00');
  const morning = Date.parse('2026-01-05T00:00:00+07:00');
  assert.equal(bangkokDayNumber(morning), bangkokDayNumber(lastMs));
  assert.equal(bangkokDayNumber(nextDay), bangkokDayNumber(lastMs) + 1);
});

test('minutes past Bangkok midnight', () => {
  assert.equal(bangkokMinute(Date.parse('2026-01-05T00:00:00+07:00')), 0);
  assert.equal(bangkokMinute(Date.parse('2026-01-05T21:29:59+07:00')), 21 * 60 + 29);
  assert.equal(bangkokMinute(Date.parse('2026-01-05T21:30:00+07:00')), 21 * 60 + 30);
  assert.equal(bangkokMinute(Date.parse('2026-01-05T23:59:00+07:00')), 23 * 60 + 59);
  assert.equal(bangkokMinute(Date.parse('1969-12-31T23:00:00+07:00')), 23 * 60);
});
