// Outbox repository on both stores: claiming with leases, disjoint concurrent claims,
// recording attempts, ownership rules, resend, listing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { OutboxRepo } from '../../src/store/outbox.repo.ts';
import { completePayment } from '../e2e/delivery-helpers.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`outbox repository [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let repo: OutboxRepo;
    // No worker runs here: these URLs are never contacted.
    const A = 'http://127.0.0.1:1';
    const B = 'http://127.0.0.1:12';

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
      repo = new OutboxRepo(gw.services.store.db, gw.services.store.dialect);
    });
    after(() => gw?.close());

    async function freshEvents(count: number, url = `${A}/hook`): Promise<string[]> {
      await gw.services.store.db.updateTable('outbox_events').set({ status: 'delivered' }).where('status', '=', 'pending').execute();
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const p = await completePayment(gw, creds, url);
        ids.push((await repo.findByTransaction(p.transactionid))!.id);
      }
      return ids;
    }

    test('a completed payment has one pending outbox event, due at its completion time', async () => {
      const [id] = await freshEvents(1);
      const event = (await repo.findById(id!))!;
      assert.equal(event.status, 'pending');
      assert.equal(event.attempts, 0);
      assert.equal(event.series, 1);
      assert.equal(event.nextAttemptAt, gw.clock.now);
      assert.equal(event.leaseOwner, null);
      assert.deepEqual(JSON.parse(event.payload).event_id, id);
    });

    test('claim leases due events once; a live lease is skipped, an expired one is taken over', async () => {
      const ids = await freshEvents(3);
      const first = await repo.claimDue({ owner: 'i1', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
      assert.deepEqual(first.map((e) => e.id).sort(), [...ids].sort());
      assert.ok(first.every((e) => e.leaseOwner === 'i1' && e.leaseExpiresAt !== null));
      assert.deepEqual(await repo.claimDue({ owner: 'i2', now: gw.clock.now, leaseMs: 60_000, limit: 10 }), []);

      // Not due yet: a future next_attempt_at is not claimed.
      await repo.release(ids, 'i1');
      await gw.services.store.db.updateTable('outbox_events').set({ next_attempt_at: gw.clock.now + 1000 }).where('id', '=', ids[0]!).execute();
      assert.deepEqual((await repo.claimDue({ owner: 'i2', now: gw.clock.now, leaseMs: 60_000, limit: 10 })).map((e) => e.id).sort(), [ids[1], ids[2]].sort());

      // i2's lease expires (lease of 1 ms, then wait past it): i3 takes over.
      await repo.release(ids, 'i2');
      await repo.claimDue({ owner: 'i2', now: gw.clock.now + 1000, leaseMs: 1, limit: 10 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const takeover = await repo.claimDue({ owner: 'i3', now: gw.clock.now + 1000, leaseMs: 60_000, limit: 10 });
      assert.equal(takeover.length, 3);
      assert.equal(await repo.releaseAllOf('i3'), 3);
    });

    test('concurrent claims by several owners get disjoint sets covering every due event', async () => {
      const ids = await freshEvents(24);
      const owners = ['a', 'b', 'c', 'd', 'e', 'f'];
      const claims = await Promise.all(owners.map((owner) => repo.claimDue({ owner, now: gw.clock.now, leaseMs: 60_000, limit: 6 })));
      const claimed = claims.flatMap((c) => c.map((e) => e.id));
      assert.equal(new Set(claimed).size, claimed.length, 'no event claimed twice');
      // SKIP LOCKED may make a claim come back short under contention; a second round finds the rest.
      const rest = await repo.claimDue({ owner: 'z', now: gw.clock.now, leaseMs: 60_000, limit: 100 });
      assert.deepEqual([...claimed, ...rest.map((e) => e.id)].sort(), [...ids].sort());
      for (const owner of [...owners, 'z']) await repo.releaseAllOf(owner);
    });

    test('excluded origins are skipped by exact authority, not by string prefix', async () => {
      const [onA] = await freshEvents(1, `${A}/hook?order=1`);
      const onB = (await repo.findByTransaction((await completePayment(gw, creds, `${B}/hook`)).transactionid))!.id;
      const claimed = await repo.claimDue({ owner: 'x', now: gw.clock.now, leaseMs: 60_000, limit: 10, excludePrefixes: [A] });
      assert.deepEqual(claimed.map((e) => e.id), [onB], `${B} shares the text prefix ${A} but is another origin`);
      assert.deepEqual((await repo.claimDue({ owner: 'x', now: gw.clock.now, leaseMs: 60_000, limit: 10 })).map((e) => e.id), [onA]);
      await repo.releaseAllOf('x');
    });

    test('recording: the lease holder applies the transition; a stale owner only adds to the log', async () => {
      const [id] = await freshEvents(1);
      const [claimed] = await repo.claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
      const attempt = { eventId: id!, series: 1, startedAt: gw.clock.now, latencyMs: 12.4, httpStatus: 500, error: null, responseExcerpt: 'no\u0000pe', instanceId: 'w1' };
      assert.equal(claimed!.id, id);
      assert.equal(await repo.recordAttempt(attempt, 'w1', { status: 'pending', nextAttemptAt: gw.clock.now + 5000, lastError: 'HTTP 500' }), true);
      let event = (await repo.findById(id!))!;
      assert.deepEqual([event.status, event.attempts, event.nextAttemptAt - gw.clock.now, event.lastError, event.leaseOwner], ['pending', 1, 5000, 'HTTP 500', null]);

      // w2 never held the lease: its (late) record is logged but changes nothing.
      assert.equal(await repo.recordAttempt({ ...attempt, instanceId: 'w2', httpStatus: 200 }, 'w2', { status: 'delivered', deliveredAt: gw.clock.now }), false);
      event = (await repo.findById(id!))!;
      assert.equal(event.status, 'pending');
      const log = await repo.attempts(id!);
      assert.deepEqual(log.map((a) => [a.attemptNo, a.httpStatus, a.instanceId]), [[1, 500, 'w1'], [2, 200, 'w2']]);
      assert.equal(log[0]!.latencyMs, 12);
      assert.equal(log[0]!.responseExcerpt, 'no\uFFFDpe', 'NUL cannot be stored in PostgreSQL text');
    });

    test('resend during a send keeps the lease; the old series result is logged, not applied, and the lease is freed', async () => {
      const [id] = await freshEvents(1);
      await repo.claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
      assert.equal(await repo.resend(id!, gw.clock.now), 2);
      let event = (await repo.findById(id!))!;
      assert.equal(event.leaseOwner, 'w1', 'still in flight on w1, so nobody else may claim it');
      assert.deepEqual(await repo.claimDue({ owner: 'w2', now: gw.clock.now, leaseMs: 60_000, limit: 1 }), []);

      const applied = await repo.recordAttempt(
        { eventId: id!, series: 1, startedAt: gw.clock.now, latencyMs: 1, httpStatus: 200, error: null, responseExcerpt: '', instanceId: 'w1' },
        'w1',
        { status: 'delivered', deliveredAt: gw.clock.now },
      );
      assert.equal(applied, false);
      event = (await repo.findById(id!))!;
      assert.deepEqual([event.status, event.series, event.attempts, event.leaseOwner], ['pending', 2, 0, null]);
      assert.equal((await repo.claimDue({ owner: 'w2', now: gw.clock.now, leaseMs: 60_000, limit: 1 }))[0]?.id, id);
      await repo.releaseAllOf('w2');
      assert.equal(await repo.resend('evt_missing', gw.clock.now), undefined);
    });

    test('releaseAll frees every lease; nextDueAt ignores leased events', async () => {
      const ids = await freshEvents(2);
      await gw.services.store.db.updateTable('outbox_events').set({ next_attempt_at: gw.clock.now + 7000 }).where('id', '=', ids[1]!).execute();
      await repo.claimDue({ owner: 'dead', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
      assert.equal(await repo.nextDueAt(), gw.clock.now + 7000);
      assert.equal(await repo.releaseAll(), 1);
      assert.equal(await repo.nextDueAt(), gw.clock.now);
    });

    test('list filters by merchant and status, newest first', async () => {
      const other = await addMerchant(gw);
      const mine = await completePayment(gw, other, `${A}/x`);
      const listed = await repo.list({ merchantId: other.merchantid });
      assert.deepEqual(listed.map((e) => e.transactionId), [mine.transactionid]);
      const pending = await repo.list({ status: 'pending', limit: 1000 });
      assert.ok(pending.every((e) => e.status === 'pending'));
      assert.ok(pending.some((e) => e.transactionId === mine.transactionid));
      const all = await repo.list({ limit: 1000 });
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.createdAt >= all[i]!.createdAt);
      assert.deepEqual(await repo.list({ status: 'failed', merchantId: other.merchantid }), []);
    });
  });
}
