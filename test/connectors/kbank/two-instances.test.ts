// Two live gateway instances on ONE PostgreSQL database against one kbank-sim (docs/connectors/kbank.md
// "Reconciler" and "Refunds": one inquirer per payment at a time). The
// second instance is built as main.ts builds one (createServices + buildApp over openStore on the
// same DATABASE_URL), on the first one's clock. Both reconcilers, woken together over payments
// whose callbacks were lost, share the work through their leases: every payment is asked about
// exactly once per round and completed once, with one notification and one journal entry each.
// The same refund sent to both instances at once voids the payment once at the bank and records
// one refund. SQLite is one process by design (docs/deployment.md), so this is PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createServices, type Services } from '../../../src/compose/services.ts';
import { httpDepsFrom } from '../../../src/compose/http-deps.ts';
import { buildApp } from '../../../src/http/build-app.ts';
import { createLogger } from '../../../src/logger.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/app/ports/store.ts';
import { testDialects } from '../../support/dialects.ts';
import { startLiveGateway, type LiveGateway } from '../../support/live-gateway.ts';
import { snapshot } from '../../support/live-observe.ts';
import { LogCapture, post } from '../../support/test-gateway.ts';
import type { Started } from '../../support/lifecycle.ts';

const PAYMENTS = 40;
const REFUNDS = 8;
const INQUIRY = '/v1/qrpayment/v4/inquiry';
const VOID = '/v1/qrpayment/void';

const postgres = (await testDialects()).find((d) => d.dialect === 'postgres');
const skip = postgres
  ? postgres.skip
  : 'TEST_DATABASE excludes PostgreSQL (two instances need a shared PostgreSQL; SQLite is one process by design)';

type Instance = { services: Services; app: FastifyInstance; store: Store; close(): Promise<void> };

/** A second gateway process, in-process: its own store connections, services, reconciler and HTTP app. */
async function secondInstance(gw: LiveGateway): Promise<Instance> {
  const store = openStore(gw.config.databaseUrl);
  const logger = createLogger(gw.config.logLevel, new LogCapture());
  const services = createServices(gw.config, store, gw.config.secretKey!, { now: () => gw.clock.now, logger });
  const app = await buildApp(httpDepsFrom(services), { logger });
  await app.ready();
  await services.directory.refresh();
  services.processor.reconciler.start();
  return {
    services,
    app,
    store,
    async close() {
      await services.processor.reconciler.stop();
      await app.close();
      await store.close();
    },
  };
}

describe('two live gateway instances on one PostgreSQL database [postgres]', { skip }, () => {
  let gw: LiveGateway;
  let other: Instance;

  before(async () => {
    gw = await startLiveGateway('postgres');
    other = await secondInstance(gw);
  });
  after(async () => {
    await other?.close();
    await gw?.close();
  });

  /** Partner transaction ids named by inquiries at the bank, with how often each was asked. */
  const inquiries = () => {
    const asked = new Map<string, number>();
    for (const r of gw.sim.log().requests) {
      if (r.path !== INQUIRY) continue;
      const uid = (r.body as { origPartnerTxnUid: string }).origPartnerTxnUid;
      asked.set(uid, (asked.get(uid) ?? 0) + 1);
    }
    return asked;
  };
  /** Makes every open attempt due and wakes both reconcilers at once; resolves when both rounds are over. */
  const wakeBoth = async (): Promise<Set<string>> => {
    await gw.testStore.db
      .updateTable('processor_attempts')
      .set({ next_check_at: gw.clock.now })
      .where('next_check_at', 'is not', null)
      .execute();
    // Who holds leases while the rounds run: both instances should.
    const owners = new Set<string>();
    let done = false;
    const watch = (async () => {
      while (!done) {
        const rows = await gw.testStore.db
          .selectFrom('processor_attempts')
          .select('lease_owner')
          .where('lease_owner', 'is not', null)
          .execute();
        for (const row of rows) owners.add(row.lease_owner!);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      await Promise.all([gw.services.processor.reconciler.wake(), other.services.processor.reconciler.wake()]);
    } finally {
      done = true;
      await watch;
    }
    return owners;
  };

  test(`${PAYMENTS} paid payments whose callbacks were lost: each asked once per round, completed once`, async () => {
    const payments: Array<{ p: Started; uid: string }> = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const p = await gw.start({ bill_amount: `${100 + i}.00` });
      // Half the pages are viewed through each instance: both create QRs at the bank.
      const qr = await (i % 2 === 0 ? gw.services : other.services).processor.paymentQr.ensure(await gw.transaction(p));
      assert.ok(qr);
      const attempt = (await gw.attempts(p))[0]!;
      await gw.pay(attempt.reference); // no callback URL is registered: every callback is lost
      payments.push({ p, uid: attempt.reference });
    }
    const entriesBefore = await gw.services.store.ledger.countEntries({ merchantId: gw.creds.merchantid });
    assert.equal(inquiries().size, 0, 'nobody has asked yet');

    const owners = await wakeBoth();
    assert.equal(owners.size, 2, 'both instances held leases: the work was shared');
    const asked = inquiries();
    for (const { p, uid } of payments) {
      assert.equal(asked.get(uid), 1, `${uid} asked once, by one instance`);
      const s = await snapshot(gw, p);
      assert.deepEqual([s.status, s.attempts, s.resultNotifications, s.paymentEntry], ['SUCCESS', ['1:paid'], 1, true]);
    }
    assert.equal(asked.size, PAYMENTS, 'nothing else was asked about');
    assert.equal(
      await gw.services.store.ledger.countEntries({ merchantId: gw.creds.merchantid }),
      entriesBefore + PAYMENTS,
      'one journal entry per payment',
    );
    const events = await gw.services.store.outbox.list({ merchantId: gw.creds.merchantid, limit: 1000 });
    assert.equal(events.length, PAYMENTS, 'one notification per payment');

    // The next round finds nothing open: nobody asks again.
    await wakeBoth();
    assert.deepEqual(inquiries(), asked);
  });

  test(`the same refund sent to both instances at once (${REFUNDS} payments): one void, one refund each`, async () => {
    const paid: Array<{ p: Started; uid: string }> = [];
    for (let i = 0; i < REFUNDS; i++) {
      const p = await gw.start({ bill_amount: '777.00' });
      const qr = await gw.showQr(p);
      await gw.pay(qr.reference);
      paid.push({ p, uid: qr.reference });
    }
    await gw.reconcile();
    const before = await Promise.all(paid.map(({ p }) => snapshot(gw, p)));
    for (const s of before) assert.equal(s.status, 'SUCCESS');
    const balance = before.at(-1)!.balance;
    const entries = before.at(-1)!.ledgerEntries;

    const refundOf = (p: Started) => ({
      merchantid: gw.creds.merchantid,
      password: gw.creds.password,
      transactionid: p.transactionid,
      bill_currencycode: 'THB',
      bill_amount: '777.00',
    });
    // Every refund twice, to both instances, all at the same time.
    const answers = await Promise.all(
      paid.map(({ p }) =>
        Promise.all([post(gw, '/transaction/refund', refundOf(p)), post(other, '/transaction/refund', refundOf(p))]),
      ),
    );

    for (const [i, { p, uid }] of paid.entries()) {
      const [one, two] = answers[i]!;
      assert.equal(one.status, 200, one.raw);
      assert.equal(two.status, 200, two.raw);
      assert.ok(one.body.refundid, one.raw);
      assert.equal(one.body.refundid, two.body.refundid, 'both answered the same refund');
      assert.equal(gw.bankCalls(VOID, uid), 1, `one void request for ${uid} reached the bank`);
      assert.equal(gw.sim.state().records.find((r) => r.partnerTxnUid === uid)?.status, 'VOIDED');
      assert.equal((await gw.services.store.refunds.ofTransaction(p.transactionid)).length, 1, 'one refund recorded');
      const after = await snapshot(gw, p);
      assert.deepEqual([after.status, after.resultNotifications, after.refundNotifications], ['SUCCESS', 1, 1]);
      const voids = (await gw.attempts(p)).filter((a) => a.kind === 'void').map((a) => a.state);
      assert.deepEqual(voids, ['voided']);
    }
    const after = await snapshot(gw, paid[0]!.p);
    assert.equal(after.ledgerEntries, entries + REFUNDS, 'one refund entry per payment in the ledger');
    assert.equal(balance - after.balance, 7_770_000n * BigInt(REFUNDS), 'the merchant was debited once per refund');
  });
});
