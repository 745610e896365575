// The shed-answer hold (http/edge/load-shedding.ts): SHED_DELAY, and the bound on answers held at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HELD_SHEDS, createLoadShedding } from '../../../src/http/edge/load-shedding.ts';

test(
  `at most ${MAX_HELD_SHEDS} shed answers are held at once; ` +
    'past that they go at once, and each held one goes once',
  async () => {
    const shedding = createLoadShedding({ maxInFlight: 1, shedDelayMs: 50 });
    let answered = 0;
    const done = new Promise<void>((resolve) => {
      const answer = () => {
        answered += 1;
        if (answered === MAX_HELD_SHEDS + 2) resolve();
      };
      for (let i = 0; i < MAX_HELD_SHEDS; i++) shedding.hold(answer);
      assert.equal(answered, 0, 'held, not answered yet');
      assert.equal(shedding.inFlight.held, MAX_HELD_SHEDS);
      shedding.hold(answer);
      shedding.hold(answer);
      assert.equal(answered, 2, 'past the bound: answered at once');
    });
    await done;
    assert.equal(shedding.inFlight.held, 0);
    assert.equal(answered, MAX_HELD_SHEDS + 2);
  },
);

test('SHED_DELAY=0: a shed answer goes at once', () => {
  const shedding = createLoadShedding({ maxInFlight: 1, shedDelayMs: 0 });
  let answered = false;
  shedding.hold(() => (answered = true));
  assert.equal(answered, true);
  assert.equal(shedding.inFlight.held, 0);
});
