// The open needs-attention count kept in memory (app/open-attention.ts): unknown until first read,
// re-read on its interval until stopped, moved at once by this process's raises and resolves, and a
// read that a raise or resolve overtook does not undo the move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAttention } from '../../src/app/open-attention.ts';
import type { AttentionItem } from '../../src/domain/processor-attempt.ts';

/** A store whose count answers when the test says so. */
function slowStore(initial: number) {
  let count = initial;
  let release: (() => void) | undefined;
  return {
    set: (n: number) => (count = n),
    release: () => release?.(),
    store: {
      countOpen: () => {
        const seen = count;
        return new Promise<number>((resolve) => (release = () => resolve(seen)));
      },
    },
  };
}

const item = { id: 'att_1' } as AttentionItem;

test('unknown until read; raises and resolves move it at once, never below zero', async () => {
  const fake = slowStore(2);
  const open = new OpenAttention(fake.store);
  assert.equal(open.value(), undefined);
  open.resolved(); // nothing known yet: nothing to move
  const read = open.refresh();
  fake.release();
  await read;
  assert.equal(open.value(), 2);
  const raising = open.counting({ raise: async () => true });
  assert.equal(await raising.raise(item), true);
  assert.equal(open.value(), 3);
  await open.counting({ raise: async () => false }).raise(item); // open already: not counted
  assert.equal(open.value(), 3);
  for (let i = 0; i < 5; i++) open.resolved();
  assert.equal(open.value(), 0);
});

test('a read overtaken by a resolve keeps the moved value; the next read settles it', async () => {
  const fake = slowStore(5);
  const open = new OpenAttention(fake.store);
  const first = open.refresh();
  fake.release();
  await first;
  const overtaken = open.refresh(); // the store answered 5 before this process's resolve committed
  assert.equal(open.refresh(), overtaken, 'one read at a time');
  open.resolved();
  fake.release();
  await overtaken;
  assert.equal(open.value(), 4, 'not put back to 5');
  fake.set(4);
  const next = open.refresh();
  fake.release();
  await next;
  assert.equal(open.value(), 4);
});

test('start() re-reads on its interval until stop()', async () => {
  let count = 1;
  let reads = 0;
  const open = new OpenAttention(
    {
      countOpen: async () => {
        reads++;
        return count;
      },
    },
    20,
  );
  const errors: unknown[] = [];
  open.start((error) => errors.push(error));
  count = 7;
  while (open.value() !== 7) await new Promise((r) => setTimeout(r, 10));
  open.stop();
  const after = reads;
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(reads, after, 'no read after stop()');
  assert.deepEqual(errors, []);
});
