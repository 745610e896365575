// The per-origin window (src/delivery/origin-window.ts): grows by one per window's worth of
// healthy answers up to the maximum, halves on an overloaded or unreachable exchange down to the
// floor, and stays fixed when floor and maximum agree.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { healthOfStatus, OriginWindows } from '../../src/delivery/origin-window.ts';

const SHOP = 'https://shop.example';

/** Healthy answers until the window of `origin` reaches `size`; how many it took. */
function answersUntil(windows: OriginWindows, origin: string, size: number): number {
  let answers = 0;
  while (windows.size(origin) < size && answers < 100_000) {
    windows.exchanged(origin, 'healthy');
    answers++;
  }
  return answers;
}

describe('origin windows', () => {
  test('an origin starts at the floor', () => {
    assert.equal(new OriginWindows(4, 32).size(SHOP), 4);
  });

  test('healthy answers add one slot per window of answers, up to the maximum', () => {
    const windows = new OriginWindows(4, 32);
    // A window's worth of answers per slot: 4 to 5 takes about 4 (+1/size each), 10 to 11 about 10.
    const to5 = answersUntil(windows, SHOP, 5);
    assert.ok(to5 >= 4 && to5 <= 5, `4 to 5 took ${to5} answers`);
    answersUntil(windows, SHOP, 10);
    const to11 = answersUntil(windows, SHOP, 11);
    assert.ok(to11 >= 10 && to11 <= 11, `10 to 11 took ${to11} answers`);
    answersUntil(windows, SHOP, 32);
    for (let i = 0; i < 1000; i++) windows.exchanged(SHOP, 'healthy');
    assert.equal(windows.size(SHOP), 32, 'never above the maximum');
  });

  test('an overloaded or unreachable exchange halves the window, never below the floor', () => {
    const windows = new OriginWindows(4, 32);
    answersUntil(windows, SHOP, 20);
    windows.exchanged(SHOP, 'overloaded');
    assert.equal(windows.size(SHOP), 10);
    windows.exchanged(SHOP, 'unreachable');
    assert.equal(windows.size(SHOP), 5);
    windows.exchanged(SHOP, 'unreachable');
    assert.equal(windows.size(SHOP), 4);
    windows.exchanged(SHOP, 'overloaded');
    assert.equal(windows.size(SHOP), 4);
  });

  test('a failing endpoint never grows: it stays at the floor', () => {
    const windows = new OriginWindows(4, 32);
    for (let i = 0; i < 1000; i++) windows.exchanged(SHOP, i % 2 ? 'unreachable' : 'overloaded');
    assert.equal(windows.size(SHOP), 4);
  });

  test('origins are judged apart', () => {
    const windows = new OriginWindows(2, 16);
    answersUntil(windows, SHOP, 10);
    windows.exchanged('https://other.example', 'overloaded');
    assert.equal(windows.size(SHOP), 10);
    assert.equal(windows.size('https://other.example'), 2);
  });

  test('equal floor and maximum is a fixed window', () => {
    const windows = new OriginWindows(2, 2);
    for (let i = 0; i < 100; i++) windows.exchanged(SHOP, 'healthy');
    assert.equal(windows.size(SHOP), 2);
  });

  test('429 and 5xx ask for less; other statuses are healthy answers', () => {
    for (const status of [429, 500, 502, 503, 504]) assert.equal(healthOfStatus(status), 'overloaded', `${status}`);
    for (const status of [200, 204, 301, 400, 404, 410]) assert.equal(healthOfStatus(status), 'healthy', `${status}`);
  });
});
