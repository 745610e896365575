// Completions that arrive together (docs/ledger.md "Payments written as a set"), on both stores.
// PostgreSQL writes the completions of one event-loop turn as one set (one read, one write
// statement); SQLite's writer thread commits the jobs of a turn in one transaction. Either way each
// completion must end exactly as it would alone: one final state, one transition, one outbox event,
// one ledger entry on SUCCESS, payout chains continuous and balances exact, and a completion that is
// refused (by the rules or by a database guard) fails alone without taking its neighbours with it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { isGatewayError } from '../../src/domain/errors.ts';
import { feeFor } from '../../src/domain/ledger.ts';
import { LedgerOperations } from '../../src/app/ledger-operations.ts';
import { testDialects } from '../support/dialects.ts';
import { addMerchant, startTestGateway, type MerchantCredentials, type TestGateway } from '../support/test-gateway.ts';
import { payoutBalance, snapshot, startPayment, type Started } from '../support/lifecycle.ts';

const FEE_PPM = 25_000n; // 2.5 %: every SUCCESS entry has payout, fee and clearing lines

for (const { dialect, skip } of await testDialects()) {
  describe(`completions arriving together [${dialect}]`, { skip }, () => {
    let gw: TestGateway;
    let a: MerchantCredentials;
    let b: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(dialect);
      a = await addMerchant(gw, { feeRate: '0.025' });
      b = await addMerchant(gw, { feeRate: '0.025' });
    });
    after(() => gw?.close());

    const verifyLedger = async () => {
      const { store, ledger, merchants, now } = gw.services;
      const check = await new LedgerOperations({ store, ledger, merchants, now }).verify();
      assert.equal(
        check.ok,
        true,
        JSON.stringify(check, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      );
    };
    /** The payout chain of a merchant: sequence numbers 1..n, each balance the previous plus the amount. */
    const assertChain = async (merchantId: string) => {
      const rows = await gw.testStore.db
        .selectFrom('postings')
        .select([
          sql<string>`cast(amount_minor as text)`.as('amount'),
          sql<string>`cast(account_seq as text)`.as('seq'),
          sql<string>`cast(balance_after_minor as text)`.as('after'),
        ])
        .where('account_id', '=', `merchant_payout:${merchantId}:THB`)
        .orderBy('account_seq')
        .execute();
      let balance = 0n;
      rows.forEach((r, i) => {
        balance += BigInt(r.amount);
        assert.equal(BigInt(r.seq), BigInt(i + 1), 'sequence continues');
        assert.equal(BigInt(r.after), balance, 'running balance continues');
      });
      assert.equal(await payoutBalance(gw, merchantId), balance);
    };

    test(
      'one turn of completions for two merchants, ' + 'mixed with ones the rules refuse: each ends exactly as alone',
      async () => {
        const amounts = ['100.01', '250', '999.99', '1000.03', '112.5'];
        const paymentsA: Started[] = [];
        const paymentsB: Started[] = [];
        for (let i = 0; i < 12; i++)
          paymentsA.push(await startPayment(gw, a, { bill_amount: amounts[i % amounts.length] }));
        for (let i = 0; i < 5; i++)
          paymentsB.push(await startPayment(gw, b, { bill_amount: amounts[i % amounts.length] }));
        const declined = await startPayment(gw, a, { bill_amount: '15000' }); // sandbox rule: FAILED DECLINED
        const cancelled = await startPayment(gw, b, { bill_amount: '300' });
        const final = await startPayment(gw, a, { bill_amount: '140' });
        await gw.services.complete.execute(final.transactionid, 'confirm');
        const notYetExpired = await startPayment(gw, b, { bill_amount: '141' });
        const scoped = await startPayment(gw, a, { bill_amount: '142' });
        const balanceA = await payoutBalance(gw, a.merchantid);
        const balanceB = await payoutBalance(gw, b.merchantid);

        // All in the same turn: on PostgreSQL one set, on SQLite one group on the writer thread.
        const { complete } = gw.services;
        const ok = [...paymentsA, ...paymentsB].map((p) => complete.execute(p.transactionid, 'sandbox'));
        // Settled at once, so no refusal is left unhandled while the others are awaited.
        const outcome = (promise: Promise<{ status: string; errorCodeTag: string | null }>) =>
          promise.then(
            (t) => `${t.status} ${t.errorCodeTag}`,
            (e: unknown) => (isGatewayError(e) ? e.tag : String(e)),
          );
        const others = {
          declined: outcome(complete.execute(declined.transactionid, 'sandbox')),
          cancelled: outcome(complete.execute(cancelled.transactionid, 'cancel')),
          final: outcome(complete.execute(final.transactionid, 'cancel')),
          unknown: outcome(complete.execute('no-such-transaction', 'confirm')),
          early: outcome(complete.execute(notYetExpired.transactionid, 'expire')),
          scoped: outcome(complete.execute(scoped.transactionid, 'sandbox', { merchantId: b.merchantid })),
        };
        const done = await Promise.all(ok);
        assert.ok(done.every((t) => t.status === 'SUCCESS'));
        assert.equal(await others.declined, 'FAILED DECLINED');
        assert.equal(await others.cancelled, 'FAILED CANCELLED');
        assert.equal(await others.final, 'INVALID_STATE');
        assert.equal(await others.unknown, 'NOT_FOUND');
        assert.equal(await others.early, 'INVALID_STATE');
        assert.equal(await others.scoped, 'NOT_FOUND');

        for (const p of [...paymentsA, ...paymentsB, declined, cancelled]) {
          const s = await snapshot(gw, p.transactionid);
          assert.equal(s.transitions.length, 1);
          assert.equal(s.outbox.length, 1);
          assert.equal(JSON.parse(s.outbox[0]!.payload).transactionid, p.transactionid);
          assert.equal(s.entries.length, s.status === 'SUCCESS' ? 1 : 0);
        }
        for (const p of [notYetExpired, scoped])
          assert.equal((await snapshot(gw, p.transactionid)).status, 'PROCESSING');
        assert.equal((await snapshot(gw, final.transactionid)).transitions.length, 1);

        const net = (started: Started[]) =>
          started.reduce((sum, p) => {
            const t = done.find((d) => d.id === p.transactionid)!;
            return sum + t.amountMinor - feeFor(t.amountMinor, FEE_PPM);
          }, 0n);
        assert.equal(await payoutBalance(gw, a.merchantid), balanceA + net(paymentsA));
        assert.equal(await payoutBalance(gw, b.merchantid), balanceB + net(paymentsB));
        await assertChain(a.merchantid);
        await assertChain(b.merchantid);
        await verifyLedger();
      },
    );

    test(
      'turns racing for the same transactions: each ends once, ' + 'with one transition, outbox event and entry',
      async () => {
        const payments: Started[] = [];
        for (let i = 0; i < 10; i++) payments.push(await startPayment(gw, i % 2 ? a : b, { bill_amount: '177.77' }));
        const first = payments.map((p) => gw.services.complete.execute(p.transactionid, 'confirm'));
        await new Promise((resolve) => setImmediate(resolve));
        const second = payments.map((p) => gw.services.complete.execute(p.transactionid, 'cancel'));
        const results = await Promise.allSettled([...first, ...second]);
        for (const [i, p] of payments.entries()) {
          const mine = [results[i]!, results[i + payments.length]!];
          const won = mine.filter((r) => r.status === 'fulfilled');
          assert.equal(won.length, 1, 'exactly one completion of each transaction wins');
          const lost = mine.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
          assert.ok(isGatewayError(lost.reason) && lost.reason.tag === 'INVALID_STATE', String(lost.reason));
          const s = await snapshot(gw, p.transactionid);
          assert.equal(s.status, (won[0] as PromiseFulfilledResult<{ status: string }>).value.status);
          assert.equal(s.transitions.length, 1);
          assert.equal(s.outbox.length, 1);
          assert.equal(s.entries.length, s.status === 'SUCCESS' ? 1 : 0);
        }
        await assertChain(a.merchantid);
        await assertChain(b.merchantid);
        await verifyLedger();
      },
    );

    test('a completion a database guard refuses fails alone; the others of its turn complete', async () => {
      const db = gw.testStore.db;
      const poisoned = await startPayment(gw, a, { bill_amount: '161' });
      // A test-only guard refusing that one transaction's outbox event (the marker is its id).
      if (dialect === 'sqlite') {
        await sql
          .raw(
            `create trigger test_refuse_outbox before insert on outbox_events ` +
              `when new.transaction_id = '${poisoned.transactionid}' ` +
              `begin select raise(abort, 'test: refused'); end`,
          )
          .execute(db);
      } else {
        await sql
          .raw(
            `create function test_refuse_outbox() returns trigger language plpgsql as $$ ` +
              `begin if new.transaction_id = '${poisoned.transactionid}' ` +
              `then raise exception 'test: refused'; end if; return new; end $$`,
          )
          .execute(db);
        await sql
          .raw(
            'create trigger test_refuse_outbox before insert on outbox_events ' +
              'for each row execute function test_refuse_outbox()',
          )
          .execute(db);
      }
      try {
        const payments: Started[] = [];
        for (let i = 0; i < 6; i++) payments.push(await startPayment(gw, i % 2 ? a : b, { bill_amount: '162' }));
        const results = await Promise.allSettled(
          [poisoned, ...payments].map((p) => gw.services.complete.execute(p.transactionid, 'confirm')),
        );
        assert.equal(results[0]!.status, 'rejected');
        assert.match(String((results[0] as PromiseRejectedResult).reason), /test: refused/);
        assert.ok(results.slice(1).every((r) => r.status === 'fulfilled' && r.value.status === 'SUCCESS'));
        const s = await snapshot(gw, poisoned.transactionid);
        assert.deepEqual(
          [s.status, s.transitions.length, s.outbox.length, s.entries.length],
          ['PROCESSING', 0, 0, 0],
          'the refused completion wrote nothing',
        );
        for (const p of payments) assert.equal((await snapshot(gw, p.transactionid)).entries.length, 1);
      } finally {
        await sql
          .raw('drop trigger test_refuse_outbox' + (dialect === 'sqlite' ? '' : ' on outbox_events'))
          .execute(db);
        if (dialect === 'postgres') await sql.raw('drop function test_refuse_outbox()').execute(db);
      }
      await assertChain(a.merchantid);
      await assertChain(b.merchantid);
      await verifyLedger();
    });
  });
}
