// PerTurnBatches (src/store/per-turn-batches.ts): the requests of one event-loop turn leave as one
// batch; with `maxInFlight` batches running, later requests wait and leave together when one
// finishes; a run that throws rejects its own requests and no others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerTurnBatches, type Pending } from '../../../src/store/postgres/per-turn-batches.ts';

/** A batcher whose runs finish only when the test says so; it records each batch's inputs. */
function controlled(maxBatch: number, maxInFlight: number) {
  const batches: number[][] = [];
  const finish: Array<() => void> = [];
  const batcher = new PerTurnBatches<number, number>(maxBatch, maxInFlight, (batch: Array<Pending<number, number>>) => {
    batches.push(batch.map((p) => p.input));
    return new Promise<void>((resolve) => {
      finish.push(() => {
        for (const p of batch) p.resolve(p.input * 10);
        resolve();
      });
    });
  });
  return { batcher, batches, finish };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('one turn, one batch; at the in-flight cap, later requests wait and then leave together', async () => {
  const { batcher, batches, finish } = controlled(100, 1);
  const first = [1, 2, 3].map((n) => batcher.add(n));
  await turn();
  assert.deepEqual(batches, [[1, 2, 3]]);
  const later = [4, 5].map((n) => batcher.add(n));
  await turn();
  const more = batcher.add(6);
  await turn();
  assert.deepEqual(batches, [[1, 2, 3]], 'nothing else leaves while the one allowed batch runs');
  finish.shift()!();
  assert.deepEqual(await Promise.all(first), [10, 20, 30]);
  await turn();
  assert.deepEqual(
    batches,
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    'everything that waited leaves as one batch',
  );
  finish.shift()!();
  assert.deepEqual(await Promise.all([...later, more]), [40, 50, 60]);
});

test("below the cap each turn's batch leaves at once, split at maxBatch", async () => {
  const { batcher, batches, finish } = controlled(2, 3);
  const all = [1, 2, 3, 4, 5].map((n) => batcher.add(n));
  await turn();
  assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
  while (finish.length > 0) finish.shift()!();
  assert.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50]);
});

test('a run that throws rejects its own requests; the next batch still runs', async () => {
  let calls = 0;
  const batcher = new PerTurnBatches<number, number>(100, 1, async (batch) => {
    calls += 1;
    if (calls === 1) throw new Error('boom');
    for (const p of batch) p.resolve(p.input);
  });
  const failed = batcher.add(1);
  await assert.rejects(failed, /boom/);
  assert.equal(await batcher.add(2), 2);
});

test('a selector that takes nothing holds the queue until a running batch finishes', async () => {
  const busy = new Set<number>();
  const finish: Array<() => void> = [];
  const batches: number[][] = [];
  const batcher = new PerTurnBatches<number, number>(
    100,
    2,
    (batch) => {
      batches.push(batch.map((p) => p.input));
      return new Promise<void>((resolve) =>
        finish.push(() => {
          for (const p of batch) {
            busy.delete(p.input);
            p.resolve(p.input);
          }
          resolve();
        }),
      );
    },
    // Like completions: one request per key (here: the number itself) in flight.
    (queue, max) => {
      const taken = queue.filter((p) => !busy.has(p.input)).slice(0, max);
      for (const p of taken) busy.add(p.input);
      queue.splice(0, queue.length, ...queue.filter((p) => !taken.includes(p)));
      return taken;
    },
  );
  const first = batcher.add(7);
  await turn();
  const again = batcher.add(7);
  await turn();
  assert.deepEqual(batches, [[7]], 'the second 7 waits although a slot is free');
  finish.shift()!();
  assert.equal(await first, 7);
  await turn();
  assert.deepEqual(batches, [[7], [7]]);
  finish.shift()!();
  assert.equal(await again, 7);
});
