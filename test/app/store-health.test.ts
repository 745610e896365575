// Readiness after a store fault (app/store-health.ts), on both stores: the failure clears only when
// a write as large as a payment's commits, not a tiny row that still fits where a payment does not
// (docs/operations.md "How faults answer").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PROBE_BYTES, StoreHealth } from '../../src/app/store-health.ts';
import { testDialects } from '../support/dialects.ts';
import { createTestStore } from '../support/test-store.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`readiness write probe (${dialect})`, { skip }, () => {
    test('after a reported fault, ready() writes a payment-sized probe and then clears the fault', async (t) => {
      const { store, db, cleanup } = await createTestStore(dialect);
      t.after(cleanup);
      const health = new StoreHealth(store, Date.now);
      assert.equal(await health.ready(), true);
      const probeLength = async () =>
        (
          await db
            .selectFrom('gateway_meta')
            .select('value')
            .where('name', '=', 'readiness_write_probe')
            .executeTakeFirst()
        )?.value.length;
      assert.equal(await probeLength(), undefined, 'no probe without a fault');

      health.reportUnavailable();
      assert.equal(await health.ready(), true);
      assert.ok(PROBE_BYTES >= 64 * 1024);
      assert.equal(await probeLength(), PROBE_BYTES, 'the probe is as large as a payment commit');
    });

    test('a probe that cannot be written keeps readiness failing', async () => {
      const failing = {
        ping: async () => {},
        isUnavailable: () => true,
        meta: { writeProbe: async () => Promise.reject(new Error('database or disk is full')) },
      } as unknown as ConstructorParameters<typeof StoreHealth>[0];
      const health = new StoreHealth(failing, Date.now);
      health.reportUnavailable();
      assert.equal(await health.ready(), false);
      assert.equal(await health.ready(), false);
    });
  });
}
