// Outbox repositories on both stores: claiming with leases (round robin over origins, per-origin
// allowance), disjoint concurrent claims, recording attempts, ownership rules, resend, listing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../../support/dialects.ts';
import {
  addMerchant,
  startTestGateway,
  type MerchantCredentials,
  type TestGateway,
} from '../../support/test-gateway.ts';
import { OutboxRepo } from '../../../src/store/repos/outbox.repo.ts';
import { type AttemptTransition, type NewAttempt, type OutboxEvent } from '../../../src/domain/outbox-event.ts';
import { AttemptRecorder } from '../../../src/delivery/attempt-recorder.ts';
import type { DeliveryStore } from '../../../src/app/ports/delivery.ts';
import { completePayment } from '../../support/delivery.ts';

for (const { dialect, skip } of await testDialects()) {
  describe(`outbox repository [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let creds: MerchantCredentials;
    let repo: OutboxRepo;
    let claims: DeliveryStore;
    /** A claim with no per-origin limit. */
    const claimDue = async (o: {
      owner: string;
      now: number;
      leaseMs: number;
      limit: number;
    }): Promise<OutboxEvent[]> => (await claims.claim({ ...o, allowance: () => Number.MAX_SAFE_INTEGER })).events;
    // No worker runs here: these URLs are never contacted.
    const A = 'http://127.0.0.1:1';
    const B = 'http://127.0.0.1:12';

    before(async () => {
      gw = await startTestGateway(dialect);
      creds = await addMerchant(gw);
      repo = new OutboxRepo(gw.testStore.db, gw.services.store.kind);
      // As the delivery worker builds it: on SQLite the lease write is the writer thread's store job.
      claims = gw.services.store.deliveries;
    });
    after(() => gw?.close());

    async function freshEvents(count: number, url = `${A}/hook`): Promise<string[]> {
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ status: 'delivered' })
        .where('status', '=', 'pending')
        .execute();
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
      const first = await claimDue({ owner: 'i1', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
      assert.deepEqual(first.map((e) => e.id).sort(), [...ids].sort());
      assert.ok(first.every((e) => e.leaseOwner === 'i1' && e.leaseExpiresAt !== null));
      assert.deepEqual(await claimDue({ owner: 'i2', now: gw.clock.now, leaseMs: 60_000, limit: 10 }), []);

      // Not due yet: a future next_attempt_at is not claimed.
      await claims.release(ids, 'i1');
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ next_attempt_at: gw.clock.now + 1000 })
        .where('id', '=', ids[0]!)
        .execute();
      assert.deepEqual(
        (await claimDue({ owner: 'i2', now: gw.clock.now, leaseMs: 60_000, limit: 10 })).map((e) => e.id).sort(),
        [ids[1], ids[2]].sort(),
      );

      // i2's lease expires (lease of 1 ms, then wait past it): i3 takes over.
      await claims.release(ids, 'i2');
      await claimDue({ owner: 'i2', now: gw.clock.now + 1000, leaseMs: 1, limit: 10 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const takeover = await claimDue({ owner: 'i3', now: gw.clock.now + 1000, leaseMs: 60_000, limit: 10 });
      assert.equal(takeover.length, 3);
      assert.equal(await claims.releaseAllOf('i3'), 3);
    });

    test('concurrent claims by several owners get disjoint sets covering every due event', async () => {
      const ids = await freshEvents(24);
      const owners = ['a', 'b', 'c', 'd', 'e', 'f'];
      const results = await Promise.all(
        owners.map((owner) => claimDue({ owner, now: gw.clock.now, leaseMs: 60_000, limit: 6 })),
      );
      const claimed = results.flatMap((c) => c.map((e) => e.id));
      assert.equal(new Set(claimed).size, claimed.length, 'no event claimed twice');
      // SKIP LOCKED may make a claim come back short under contention; a second round finds the rest.
      const rest = await claimDue({ owner: 'z', now: gw.clock.now, leaseMs: 60_000, limit: 100 });
      assert.deepEqual([...claimed, ...rest.map((e) => e.id)].sort(), [...ids].sort());
      for (const owner of [...owners, 'z']) await claims.releaseAllOf(owner);
    });

    test('an origin is its scheme and authority: a shared text prefix is another origin', async () => {
      const [onA] = await freshEvents(1, `${A}/hook?order=1`);
      const onB = (await repo.findByTransaction((await completePayment(gw, creds, `${B}/hook`)).transactionid))!.id;
      assert.equal((await repo.findById(onA!))!.origin, A);
      assert.equal((await repo.findById(onB))!.origin, B);
      const claimed = await claims.claim({
        owner: 'x',
        now: gw.clock.now,
        leaseMs: 60_000,
        limit: 10,
        allowance: (origin) => (origin === A ? 0 : 10),
      });
      assert.deepEqual(
        claimed.events.map((e) => e.id),
        [onB],
        `${B} shares the text prefix ${A} but is another origin`,
      );
      assert.deepEqual(
        (await claimDue({ owner: 'x', now: gw.clock.now, leaseMs: 60_000, limit: 10 })).map((e) => e.id),
        [onA],
      );
      await claims.releaseAllOf('x');
    });

    test("a saturated origin's backlog is passed over: the claim still finds the other origin's event", async () => {
      const backlog = await freshEvents(40, `${A}/dead`);
      const onB = (await repo.findByTransaction((await completePayment(gw, creds, `${B}/alive`)).transactionid))!.id;
      const claimed = await claims.claim({
        owner: 'w',
        now: gw.clock.now,
        leaseMs: 60_000,
        limit: 4,
        allowance: (origin) => (origin === A ? 0 : 4),
      });
      assert.deepEqual(
        claimed.events.map((e) => e.id),
        [onB],
      );
      // With room for A again, its oldest events come first, at most the allowance.
      const fromA = await claims.claim({
        owner: 'w',
        now: gw.clock.now,
        leaseMs: 60_000,
        limit: 10,
        allowance: (origin) => (origin === A ? 3 : 0),
      });
      assert.deepEqual(
        fromA.events.map((e) => e.id),
        backlog.slice(0, 3),
      );
      await claims.releaseAllOf('w');
    });

    test('origins take turns: a claim starts after the origin the previous one ended on', async () => {
      const origins = ['http://127.0.0.1:21', 'http://127.0.0.1:22', 'http://127.0.0.1:23'];
      await freshEvents(0);
      for (const origin of origins) for (let i = 0; i < 3; i++) await completePayment(gw, creds, `${origin}/n`);
      const rounds: string[][] = [];
      let after: string | undefined;
      for (let round = 0; round < 3; round++) {
        const claim = await claims.claim({
          owner: 'rr',
          now: gw.clock.now,
          leaseMs: 60_000,
          limit: 2,
          allowance: () => 1,
          ...(after !== undefined && { after }),
        });
        after = claim.lastOrigin;
        rounds.push(claim.events.map((e) => e.origin).sort());
      }
      // Rounds of two, one event per origin, cycling 21 22 | 23 21 | 22 23: every origin is served twice.
      assert.deepEqual(rounds, [
        [origins[0], origins[1]],
        [origins[0], origins[2]],
        [origins[1], origins[2]],
      ]);
      await claims.releaseAllOf('rr');
    });

    // Both ways an attempt is recorded: the batch write the worker uses on this store (SQLite's
    // store job, PostgreSQL's single statement) and the repository's transaction (its fallback).
    for (const writer of ['batch writer', 'repository'] as const) {
      const recordOne = async (attempt: NewAttempt, owner: string, transition: AttemptTransition): Promise<boolean> =>
        writer === 'repository'
          ? repo.recordAttempt(attempt, owner, transition)
          : (await gw.services.store.deliveries.recordAttempts([{ attempt, owner, transition }]))[0]!;

      test(
        `recording (${writer}): the lease holder applies ` + `the transition; a stale owner only adds to the log`,
        async () => {
          const [id] = await freshEvents(1);
          const [claimed] = await claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
          const attempt = {
            eventId: id!,
            series: 1,
            startedAt: gw.clock.now,
            latencyMs: 12.4,
            httpStatus: 500,
            error: null,
            responseExcerpt: 'no\u0000pe',
            instanceId: 'w1',
          };
          assert.equal(claimed!.id, id);
          assert.equal(
            await recordOne(attempt, 'w1', {
              status: 'pending',
              nextAttemptAt: gw.clock.now + 5000,
              lastError: 'HTTP 500',
            }),
            true,
          );
          let event = (await repo.findById(id!))!;
          assert.deepEqual(
            [event.status, event.attempts, event.nextAttemptAt - gw.clock.now, event.lastError, event.leaseOwner],
            ['pending', 1, 5000, 'HTTP 500', null],
          );

          // w2 never held the lease: its (late) record is logged but changes nothing.
          assert.equal(
            await recordOne({ ...attempt, instanceId: 'w2', httpStatus: 200 }, 'w2', {
              status: 'delivered',
              deliveredAt: gw.clock.now,
            }),
            false,
          );
          event = (await repo.findById(id!))!;
          assert.equal(event.status, 'pending');
          const log = await repo.attempts(id!);
          assert.deepEqual(
            log.map((a) => [a.attemptNo, a.httpStatus, a.instanceId]),
            [
              [1, 500, 'w1'],
              [2, 200, 'w2'],
            ],
          );
          assert.equal(log[0]!.latencyMs, 12);
          assert.equal(log[0]!.responseExcerpt, 'no\uFFFDpe', 'NUL cannot be stored in PostgreSQL text');
        },
      );

      test(
        `recording (${writer}): a resend during a send keeps the lease; ` +
          `the old series result is logged, not applied, and the lease is freed`,
        async () => {
          const [id] = await freshEvents(1);
          await claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
          assert.equal(await repo.resend(id!, gw.clock.now), 2);
          let event = (await repo.findById(id!))!;
          assert.equal(event.leaseOwner, 'w1', 'still in flight on w1, so nobody else may claim it');
          assert.deepEqual(await claimDue({ owner: 'w2', now: gw.clock.now, leaseMs: 60_000, limit: 1 }), []);

          const applied = await recordOne(
            {
              eventId: id!,
              series: 1,
              startedAt: gw.clock.now,
              latencyMs: 1,
              httpStatus: 200,
              error: null,
              responseExcerpt: '',
              instanceId: 'w1',
            },
            'w1',
            { status: 'delivered', deliveredAt: gw.clock.now },
          );
          assert.equal(applied, false);
          event = (await repo.findById(id!))!;
          assert.deepEqual([event.status, event.series, event.attempts, event.leaseOwner], ['pending', 2, 0, null]);
          assert.equal((await claimDue({ owner: 'w2', now: gw.clock.now, leaseMs: 60_000, limit: 1 }))[0]?.id, id);
          await claims.releaseAllOf('w2');
          assert.equal(await repo.resend('evt_missing', gw.clock.now), undefined);
        },
      );
    }

    test('a batch applies each transition by its own lease, in one write; results follow the items', async () => {
      const [mine, resent, theirs, free] = await freshEvents(4);
      await claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
      await repo.resend(resent!, gw.clock.now); // series 2 while w1 still sends series 1
      await claims.release([theirs!], 'w1');
      // `theirs` (the only one free and due)
      await claimDue({ owner: 'w2', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
      await claims.release([free!], 'w1');
      const attempt = (eventId: string) => ({
        eventId,
        series: 1,
        startedAt: gw.clock.now,
        latencyMs: 3,
        httpStatus: 200,
        error: null,
        responseExcerpt: 'ok',
        instanceId: 'w1',
      });
      const delivered = { status: 'delivered' as const, deliveredAt: gw.clock.now + 1 };
      const record = gw.services.store.deliveries.recordAttempts;
      // Not in id order: the answer still follows the items.
      const items = [free!, theirs!, mine!, resent!].map((id) => ({
        attempt: attempt(id),
        owner: 'w1',
        transition: delivered,
      }));
      assert.deepEqual(await record(items), [false, false, true, false]);

      const state = async (id: string) => {
        const e = (await repo.findById(id))!;
        return [e.status, e.attempts, e.series, e.leaseOwner, e.deliveredAt];
      };
      assert.deepEqual(
        await state(mine!),
        ['delivered', 1, 1, null, gw.clock.now + 1],
        'held for its series: applied, lease given back',
      );
      assert.deepEqual(
        await state(resent!),
        ['pending', 0, 2, null, null],
        'held, but resent meanwhile: only the lease goes back',
      );
      assert.deepEqual(await state(theirs!), ['pending', 0, 1, 'w2', null], "another instance's lease is left alone");
      assert.deepEqual(await state(free!), ['pending', 0, 1, null, null]);
      for (const id of [mine!, resent!, theirs!, free!])
        assert.deepEqual(
          (await repo.attempts(id)).map((a) => [a.attemptNo, a.instanceId]),
          [[1, 'w1']],
          'every attempt is logged',
        );

      // Numbering goes on from the event's last attempt.
      assert.deepEqual(await record([{ attempt: attempt(mine!), owner: 'w1', transition: delivered }]), [false]);
      assert.deepEqual(
        (await repo.attempts(mine!)).map((a) => a.attemptNo),
        [1, 2],
      );
      await claims.releaseAllOf('w2');
    });

    test(
      'two recorders logging the same events at once, ' + 'in opposite orders: every attempt is kept, numbered in turn',
      async () => {
        const ids = await freshEvents(6);
        await claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
        const item = (eventId: string, owner: string) => ({
          attempt: {
            eventId,
            series: 1,
            startedAt: gw.clock.now,
            latencyMs: 1,
            httpStatus: 200,
            error: null,
            responseExcerpt: '',
            instanceId: owner,
          },
          owner,
          transition: { status: 'delivered' as const, deliveredAt: gw.clock.now },
        });
        const one = new AttemptRecorder(gw.services.store.deliveries.recordAttempts);
        const other = new AttemptRecorder(gw.services.store.deliveries.recordAttempts);
        // Each recorder sends its six as one batch; the batches lock the same rows (in id order, so
        // they cannot deadlock). A batch that loses the race for the numbering is recorded item by item.
        const applied = await Promise.all([
          ...ids.map((id) => one.record(item(id, 'w1'))),
          ...[...ids].reverse().map((id) => other.record(item(id, 'w2'))),
        ]);
        assert.deepEqual(applied.slice(0, 6), [true, true, true, true, true, true], 'w1 held every lease');
        assert.deepEqual(applied.slice(6), [false, false, false, false, false, false], 'w2 never did');
        for (const id of ids) {
          const log = await repo.attempts(id);
          assert.deepEqual(
            log.map((a) => a.attemptNo),
            [1, 2],
          );
          assert.deepEqual(log.map((a) => a.instanceId).sort(), ['w1', 'w2']);
          assert.equal((await repo.findById(id))!.status, 'delivered');
        }
      },
    );

    test('a batch naming an unknown event writes nothing at all', async () => {
      const [id] = await freshEvents(1);
      await claimDue({ owner: 'w1', now: gw.clock.now, leaseMs: 60_000, limit: 1 });
      const item = (eventId: string) => ({
        attempt: {
          eventId,
          series: 1,
          startedAt: gw.clock.now,
          latencyMs: 1,
          httpStatus: 200,
          error: null,
          responseExcerpt: '',
          instanceId: 'w1',
        },
        owner: 'w1',
        transition: { status: 'delivered' as const, deliveredAt: gw.clock.now },
      });
      await assert.rejects(gw.services.store.deliveries.recordAttempts([item(id!), item('evt_missing')]));
      const event = (await repo.findById(id!))!;
      assert.deepEqual([event.status, event.attempts, event.leaseOwner], ['pending', 0, 'w1']);
      assert.deepEqual(await repo.attempts(id!), []);
      await claims.releaseAllOf('w1');
    });

    test('releaseAll frees every lease; nextDueAt ignores leased events', async () => {
      const ids = await freshEvents(2);
      await gw.testStore.db
        .updateTable('outbox_events')
        .set({ next_attempt_at: gw.clock.now + 7000 })
        .where('id', '=', ids[1]!)
        .execute();
      await claimDue({ owner: 'dead', now: gw.clock.now, leaseMs: 60_000, limit: 10 });
      assert.equal(await claims.nextDueAt(), gw.clock.now + 7000);
      assert.equal(await claims.releaseAll(), 1);
      assert.equal(await claims.nextDueAt(), gw.clock.now);
    });

    test('list pages newest first by (created_at, id): every event once, ties broken by id', async () => {
      const pager = await addMerchant(gw);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        const p = await completePayment(gw, pager, `${A}/page`);
        made.push((await repo.findByTransaction(p.transactionid))!.id);
        if (i === 2) gw.clock.now += 1; // two distinct created_at values, several rows sharing one
      }
      const seen: string[] = [];
      let before: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await repo.list({ merchantId: pager.merchantid, limit: 2, ...(before && { before }) });
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.id));
        before = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
      }
      const expected = (await repo.list({ merchantId: pager.merchantid, limit: 100 })).map((e) => e.id);
      assert.deepEqual(seen, expected, 'the pages together are the whole list, in order');
      assert.deepEqual([...seen].sort(), [...made].sort());
      assert.deepEqual(seen.slice(0, 2).sort(), made.slice(3).sort(), 'the newest created_at comes first');
    });

    test('list filters by merchant and status, newest first', async () => {
      const other = await addMerchant(gw);
      const mine = await completePayment(gw, other, `${A}/x`);
      const listed = await repo.list({ merchantId: other.merchantid });
      assert.deepEqual(
        listed.map((e) => e.transactionId),
        [mine.transactionid],
      );
      const pending = await repo.list({ status: 'pending', limit: 1000 });
      assert.ok(pending.every((e) => e.status === 'pending'));
      assert.ok(pending.some((e) => e.transactionId === mine.transactionid));
      const all = await repo.list({ limit: 1000 });
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.createdAt >= all[i]!.createdAt);
      assert.deepEqual(await repo.list({ status: 'failed', merchantId: other.merchantid }), []);
    });
  });
}
